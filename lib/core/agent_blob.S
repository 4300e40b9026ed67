/* The agent shared object, embedded in the cdt binary. */
	.section .rodata
	.balign 64
	.globl cdt_agent_blob
	.globl cdt_agent_blob_end
cdt_agent_blob:
	.incbin AGENT_SO
cdt_agent_blob_end:
	.section .note.GNU-stack,"",@progbits
