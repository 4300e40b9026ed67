/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The terminal UI core: terminal set-up and teardown, the key loop, a row
 * of top-level screens (tabs) with a stack of drill-down screens over
 * them, the status bar, the search prompt and help.
 *
 * A screen is a module that implements struct tui_screen: tui_table.h
 * (any struct table, sortable), tui_heatmap.h (square matrices), and the
 * text screen below.  A tool's profile opens as a list of screens that
 * the front end assembles; a new kind of display is one new module here.
 * Nothing here knows about perf or profiles.
 *
 * The terminal is restored on every way out: normal return, error
 * return, SIGINT/SIGTERM/SIGHUP/SIGQUIT (a flag the loop polls), exit()
 * (an atexit handler), and crashes (termios and the alternate screen are
 * restored from the signal handler before the old handler runs).
 */
#ifndef CDT_TUI_H
#define CDT_TUI_H

#include <stddef.h>

struct tui;

struct tui_area {
	int y, x, h, w;
};

/* Returned by tui_screen.key when the screen did not use the key. */
#define TUI_KEY_UNUSED 1

struct tui_screen {
	char name[64];       /* the tab or stack label */
	const char *keys;    /* help: "key\twhat it does\n" per line, or NULL */
	void *priv;
	/* Draw into a; 0 or -errno (ends the TUI). */
	int (*draw)(struct tui_screen *s, struct tui *t, const struct tui_area *a);
	/* 0 handled, TUI_KEY_UNUSED, or -errno (ends the TUI). */
	int (*key)(struct tui_screen *s, struct tui *t, int key);
	/* '/', n, N: move to the next match of text in direction dir (+1/-1);
	 * 1 found, 0 not found, -errno.  NULL: the screen cannot search. */
	int (*find)(struct tui_screen *s, struct tui *t, const char *text, int dir);
	void (*destroy)(struct tui_screen *s); /* frees priv and s */
};

struct tui_opts {
	const char *title;  /* left of the tab row, e.g. the file name */
	size_t start;       /* tab shown first */
	int draw_once;      /* draw the first screen and return (tests, bench) */
	int colors;         /* -1: as the terminal says; 0: none (NO_COLOR) */
};

/*
 * Run the UI over tabs[0..n) until the user quits.  The tabs stay the
 * caller's; screens pushed meanwhile are destroyed.  Returns 0, or
 * -ENOTTY if the terminal cannot be used, or another -errno; *sig is the
 * signal that ended it, else 0.
 */
int tui_run(struct tui_screen **tabs, size_t n, const struct tui_opts *o, int *sig);

void tui_screen_destroy(struct tui_screen *s);

/* For screens: open a drill-down over the current screen (it takes s,
 * destroying it on failure). */
int tui_push(struct tui *t, struct tui_screen *s);
/* A one-line message in the status bar until the next key. */
void tui_msg(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Colours the terminal offers and the user allows: 0, 8 or 256. */
int tui_colors(const struct tui *t);
/* A colour pair number for fg on bg (-1: the terminal's default), 0 if
 * no more pairs can be made. */
int tui_pair(struct tui *t, int fg, int bg);
/* Draw s at (y, x) cut to w columns, with curses attributes attr. */
void tui_put(int y, int x, int w, int attr, const char *s);
/* A header, legend or status line of items apart by two spaces (or
 * " | "): those that do not fit are left out whole, never cut mid-word. */
void tui_put_items(int y, int x, int w, int attr, const char *s);

/*
 * A scrolling page of text lines (help, details): takes the text,
 * lines separated by '\n', long lines wrapped.  NULL on ENOMEM.
 */
struct tui_screen *tui_text_new(const char *name, const char *text);

#endif
