// SPDX-License-Identifier: GPL-2.0-only
/* The TUI core (see tui.h): terminal, key loop, tabs and stack, help. */
#include "output/tui.h"

#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "output/textesc.h"

#define TUI_STACK 16
#define TUI_PAIRS 64
#define TUI_POLL_MS 200 /* how often the loop looks at the signal flag */

struct tui {
	SCREEN *scr;
	FILE *in;    /* the keyboard: stdin, or /dev/tty when stdin is redirected */
	int own_in;
	int sigs;    /* our handlers are installed */
	const struct tui_opts *o;
	int colors;
	struct tui_screen **tabs;
	size_t ntabs, cur;
	struct tui_screen *stack[TUI_STACK];
	size_t depth;
	char msg[256];
	char query[128];
	int pair_fg[TUI_PAIRS], pair_bg[TUI_PAIRS];
	int npairs;
	int quit;
};

/*
 * The only global state: what a signal handler and an atexit handler
 * need to give the terminal back, since neither can be passed a pointer.
 * `sig` is the flag the key loop polls; the rest is written before
 * curses starts and only read by the handlers.
 */
static const int tui_quit_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int tui_fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define TUI_NSIGS (sizeof(tui_quit_sigs) / sizeof(int) + sizeof(tui_fatal_sigs) / sizeof(int))

static struct {
	volatile sig_atomic_t sig;
	volatile sig_atomic_t live;  /* curses owns the terminal */
	int fd;                      /* the terminal's output */
	struct termios tio;          /* its settings before curses */
	char reset[160];             /* sgr0 rmkx cnorm rmcup of the terminal */
	size_t reset_len;
	struct sigaction old[TUI_NSIGS];
	int atexit_set;
} tui_g;

static int tui_sig_slot(int sig)
{
	size_t nq = sizeof(tui_quit_sigs) / sizeof(int);

	for (size_t i = 0; i < TUI_NSIGS; i++)
		if ((i < nq ? tui_quit_sigs[i] : tui_fatal_sigs[i - nq]) == sig)
			return (int)i;
	return -1;
}

static void tui_on_quit(int sig)
{
	tui_g.sig = sig;
}

/* A crash: restore the terminal by async-signal-safe calls only, then let
 * the previous handler (default: core dump; ASan: its report) see it. */
static void tui_on_fatal(int sig)
{
	int i = tui_sig_slot(sig);

	if (tui_g.live) {
		tcsetattr(tui_g.fd, TCSANOW, &tui_g.tio);
		if (write(tui_g.fd, tui_g.reset, tui_g.reset_len) < 0) {
			/* nothing more can be done for the terminal in a crash */
		}
		tui_g.live = 0;
	}
	if (i >= 0)
		sigaction(sig, &tui_g.old[i], NULL);
	raise(sig);
}

static void tui_atexit(void)
{
	if (tui_g.live && !isendwin())
		endwin();
	tui_g.live = 0;
}

static int tui_signals_set(void)
{
	size_t nq = sizeof(tui_quit_sigs) / sizeof(int);
	struct sigaction sa;

	/* All old actions first, so that a restore after a failure is right. */
	for (size_t i = 0; i < TUI_NSIGS; i++)
		if (sigaction(i < nq ? tui_quit_sigs[i] : tui_fatal_sigs[i - nq], NULL, &tui_g.old[i]))
			return -errno;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a quit signal should end a blocking read at once. */
	for (size_t i = 0; i < TUI_NSIGS; i++) {
		sa.sa_handler = i < nq ? tui_on_quit : tui_on_fatal;
		if (sigaction(i < nq ? tui_quit_sigs[i] : tui_fatal_sigs[i - nq], &sa, NULL))
			return -errno;
	}
	return 0;
}

static void tui_signals_restore(void)
{
	size_t nq = sizeof(tui_quit_sigs) / sizeof(int);

	for (size_t i = 0; i < TUI_NSIGS; i++)
		sigaction(i < nq ? tui_quit_sigs[i] : tui_fatal_sigs[i - nq], &tui_g.old[i], NULL);
}

/* The escape strings that undo what curses did, for the crash handler. */
static void tui_reset_prepare(void)
{
	static const char *const caps[] = { "sgr0", "rmkx", "cnorm", "rmcup" };

	tui_g.reset_len = 0;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		const char *s = tigetstr(caps[i]);
		size_t n;

		if (!s || s == (const char *)-1)
			continue;
		n = strlen(s);
		if (tui_g.reset_len + n >= sizeof(tui_g.reset))
			break;
		memcpy(tui_g.reset + tui_g.reset_len, s, n);
		tui_g.reset_len += n;
	}
}

/* Names and argv come from the program: escaped (textesc.h), never raw. */
void tui_put(int y, int x, int w, int attr, const char *s)
{
	char *e;

	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	e = textesc_dup(s);
	attrset(attr);
	if (e)
		mvaddnstr(y, x, e, (int)textesc_prefix(e, (size_t)w));
	attrset(A_NORMAL);
	free(e);
}

void tui_put_items(int y, int x, int w, int attr, const char *s)
{
	size_t n = strlen(s), cut = 0;
	char *part;

	if (w <= 0)
		return;
	if (textesc_cols(s) <= (size_t)w) {
		tui_put(y, x, w, attr, s);
		return;
	}
	/* The last item boundary, else word boundary, within the width. */
	for (size_t i = 1; i + 1 < n && i <= (size_t)w; i++)
		if (s[i] == ' ' && (s[i + 1] == ' ' || s[i + 1] == '|') && s[i - 1] != ' ')
			cut = i;
	for (size_t i = (size_t)w; !cut && i > 0; i--)
		if (s[i] == ' ')
			cut = i;
	part = strndup(s, cut ? cut : (size_t)w);
	if (part)
		tui_put(y, x, w, attr, part);
	free(part);
}

void tui_msg(struct tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
}

int tui_colors(const struct tui *t)
{
	return t->colors;
}

int tui_pair(struct tui *t, int fg, int bg)
{
	for (int i = 0; i < t->npairs; i++)
		if (t->pair_fg[i] == fg && t->pair_bg[i] == bg)
			return i + 1;
	if (!t->colors || t->npairs >= TUI_PAIRS || t->npairs + 1 >= COLOR_PAIRS)
		return 0;
	if (init_pair((short)(t->npairs + 1), (short)fg, (short)bg) == ERR)
		return 0;
	t->pair_fg[t->npairs] = fg;
	t->pair_bg[t->npairs] = bg;
	return ++t->npairs;
}

void tui_screen_destroy(struct tui_screen *s)
{
	if (s && s->destroy)
		s->destroy(s);
	else
		free(s);
}

int tui_push(struct tui *t, struct tui_screen *s)
{
	if (!s)
		return -ENOMEM;
	if (t->depth == TUI_STACK) {
		tui_screen_destroy(s);
		tui_msg(t, "too many screens open: q closes one");
		return 0;
	}
	t->stack[t->depth++] = s;
	return 0;
}

static struct tui_screen *tui_top(const struct tui *t)
{
	return t->depth ? t->stack[t->depth - 1] : t->tabs[t->cur];
}

static void tui_pop(struct tui *t)
{
	if (t->depth)
		tui_screen_destroy(t->stack[--t->depth]);
}

static int tui_start(struct tui *t)
{
	const char *term = getenv("TERM");
	int fd = fileno(stdout), err;

	t->in = stdin;
	if (!isatty(fileno(stdin))) {
		t->in = fopen("/dev/tty", "r");
		if (!t->in)
			return -ENOTTY;
		t->own_in = 1;
	}
	if (!term || !*term || tcgetattr(fd, &tui_g.tio))
		return -ENOTTY;
	tui_g.fd = fd;
	if (!tui_g.atexit_set && atexit(tui_atexit) == 0)
		tui_g.atexit_set = 1;
	tui_g.sig = 0;
	t->sigs = 1; /* the old actions are read before any is changed */
	err = tui_signals_set();
	if (err)
		return err;
	/* newterm, unlike initscr, returns an error instead of exiting. */
	t->scr = newterm(NULL, stdout, t->in);
	if (!t->scr)
		return -ENOTTY;
	tui_g.live = 1;
	/* A terminal that cannot place the cursor (dumb) cannot show screens. */
	if (!tigetstr("cup") || tigetstr("cup") == (char *)-1)
		return -ENOTTY;
	tui_reset_prepare();
	cbreak(); /* not raw: Ctrl-C stays SIGINT, and the loop ends cleanly on it */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	timeout(TUI_POLL_MS);
	curs_set(0);
	t->colors = 0;
	if (t->o->colors != 0 && has_colors() && start_color() == OK) {
		use_default_colors();
		t->colors = COLORS >= 256 ? 256 : COLORS >= 8 ? 8 : 0;
	}
	return 0;
}

static void tui_stop(struct tui *t)
{
	if (t->scr) {
		if (!isendwin())
			endwin();
		tui_g.live = 0;
		delscreen(t->scr);
		t->scr = NULL;
	}
	tui_g.live = 0;
	if (t->sigs)
		tui_signals_restore();
	if (t->own_in)
		fclose(t->in);
}

/* " cdt  1:Heatmap  2:Lines ... > Cell 0 x 1" and, if room is left, the
 * title at the right. */
static void tui_draw_tabs(const struct tui *t)
{
	const char *title = t->o->title ? t->o->title : "";
	char buf[160];
	int x = 5, n;

	move(0, 0);
	attrset(A_REVERSE);
	hline(' ', COLS);
	tui_put(0, 0, COLS, A_REVERSE | A_BOLD, " cdt ");
	/* Whole tabs only: one that does not fit is left out, not cut. */
	for (size_t i = 0; i < t->ntabs; i++) {
		snprintf(buf, sizeof(buf), " %zu:%s ", i + 1, t->tabs[i]->name);
		if (x + (int)strlen(buf) > COLS)
			break;
		tui_put(0, x, COLS - x, i == t->cur ? A_BOLD : A_REVERSE, buf);
		x += (int)strlen(buf);
	}
	for (size_t i = 0; i < t->depth && x < COLS; i++) {
		snprintf(buf, sizeof(buf), " > %s", t->stack[i]->name);
		tui_put_items(0, x, COLS - x, A_REVERSE | (i + 1 == t->depth ? A_BOLD : 0), buf);
		x += (int)strlen(buf);
	}
	n = (int)strlen(title);
	if (x + 2 + n < COLS)
		tui_put(0, COLS - n - 1, n, A_REVERSE, title);
}

static void tui_draw_status(const struct tui *t)
{
	const char *hint = t->depth ? " ?:help  q:back  Q:quit  /:search  n/N:next/prev match"
				    : " ?:help  q:quit  Tab,1-9:screens  /:search  n/N:next/prev match";

	move(LINES - 1, 0);
	attrset(A_REVERSE);
	hline(' ', COLS);
	tui_put_items(LINES - 1, 0, COLS, A_REVERSE, t->msg[0] ? t->msg : hint);
}

static int tui_draw(struct tui *t)
{
	struct tui_area a = { 1, 0, LINES - 2, COLS };
	struct tui_screen *s = tui_top(t);
	int err = 0;

	erase();
	if (LINES < 8 || COLS < 30) {
		tui_put(0, 0, COLS, A_BOLD, "terminal too small");
		refresh();
		return 0;
	}
	tui_draw_tabs(t);
	err = s->draw(s, t, &a);
	tui_draw_status(t);
	refresh();
	return err;
}

/* Read a line into buf in the status bar; 1 entered, 0 cancelled. */
static int tui_prompt(struct tui *t, const char *label, char *buf, size_t len)
{
	size_t n = 0;
	int done = -1;

	buf[0] = '\0';
	curs_set(1);
	while (done < 0 && !tui_g.sig) {
		int ch;

		move(LINES - 1, 0);
		attrset(A_NORMAL);
		clrtoeol();
		tui_put(LINES - 1, 0, COLS, A_BOLD, label);
		tui_put(LINES - 1, (int)strlen(label), COLS - (int)strlen(label), A_NORMAL, buf);
		move(LINES - 1, (int)(strlen(label) + n) < COLS ? (int)(strlen(label) + n) : COLS - 1);
		refresh();
		ch = getch();
		if (ch == ERR)
			continue;
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			done = 1;
		else if (ch == 27 || ch == 7) /* Esc, Ctrl-G */
			done = 0;
		else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
			buf[--n] = '\0';
		else if (ch == KEY_RESIZE)
			tui_draw(t);
		else if (ch >= 32 && ch < 256 && ch != 127 && n + 1 < len) {
			buf[n++] = (char)ch;
			buf[n] = '\0';
		}
	}
	curs_set(0);
	return done == 1 && n > 0;
}

static int tui_find(struct tui *t, int dir)
{
	struct tui_screen *s = tui_top(t);
	int r;

	if (!s->find) {
		tui_msg(t, "this screen has nothing to search");
		return 0;
	}
	if (!t->query[0]) {
		tui_msg(t, "no search yet: / starts one");
		return 0;
	}
	r = s->find(s, t, t->query, dir);
	if (r == 0)
		tui_msg(t, "not found: %s", t->query);
	return r < 0 ? r : 0;
}

static const char tui_global_keys[] =
	"?, F1\tthis help\n"
	"q\tclose this screen; on a top screen, quit\n"
	"Q\tquit from anywhere\n"
	"Esc, Backspace\tclose this screen (back)\n"
	"Tab, Shift-Tab\tnext, previous top screen\n"
	"1 to 9\ttop screen by number (see the top row)\n"
	"/\tsearch (Enter searches, Esc cancels)\n"
	"n, N\tnext, previous match\n"
	"Ctrl-L\tredraw\n"
	"Ctrl-C\tquit (the terminal is restored)\n";

static int tui_keys_text(char **out, size_t *len, const char *title, const char *keys)
{
	FILE *f = open_memstream(out, len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n", title);
	while (keys && *keys) {
		size_t k = strcspn(keys, "\t\n"), v;

		fprintf(f, "  %-16.*s", (int)k, keys);
		keys += k;
		if (*keys == '\t')
			keys++;
		v = strcspn(keys, "\n");
		fprintf(f, "%.*s\n", (int)v, keys);
		keys += v;
		if (*keys == '\n')
			keys++;
	}
	return fclose(f) ? -ENOMEM : 0;
}

static int tui_help(struct tui *t)
{
	struct tui_screen *s = tui_top(t);
	char *a = NULL, *b = NULL, *text = NULL;
	size_t la, lb;
	int err;

	err = tui_keys_text(&a, &la, "Keys everywhere", tui_global_keys);
	if (!err) {
		char title[96];

		snprintf(title, sizeof(title), "Keys of this screen (%s)", s->name);
		err = tui_keys_text(&b, &lb, title, s->keys ? s->keys : "\t(none of its own)\n");
	}
	if (!err && asprintf(&text, "%s\n%s", b, a) < 0)
		err = -ENOMEM;
	if (!err)
		err = tui_push(t, tui_text_new("Help", text));
	free(a);
	free(b);
	free(text);
	return err;
}

static int tui_tab(struct tui *t, size_t i)
{
	if (i >= t->ntabs)
		return 0;
	while (t->depth)
		tui_pop(t);
	t->cur = i;
	return 0;
}

/* Keys the screen left unused. */
static int tui_key(struct tui *t, int ch)
{
	switch (ch) {
	case 'q':
		if (t->depth)
			tui_pop(t);
		else
			t->quit = 1;
		return 0;
	case 'Q':
	case 3: /* Ctrl-C, should the terminal deliver it as a key */
		t->quit = 1;
		return 0;
	case 27:
	case KEY_BACKSPACE:
	case 127:
	case 8:
		tui_pop(t);
		return 0;
	case '?':
	case KEY_F(1):
		return tui_help(t);
	case '\t':
		return tui_tab(t, (t->cur + 1) % t->ntabs);
	case KEY_BTAB:
		return tui_tab(t, (t->cur + t->ntabs - 1) % t->ntabs);
	case '/':
		if (!tui_prompt(t, "/", t->query, sizeof(t->query)))
			return 0;
		return tui_find(t, 1);
	case 'n':
		return tui_find(t, 1);
	case 'N':
		return tui_find(t, -1);
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		return 0;
	case KEY_RESIZE:
		return 0;
	default:
		if (ch >= '1' && ch <= '9')
			return tui_tab(t, (size_t)(ch - '1'));
		return 0;
	}
}

static int tui_loop(struct tui *t)
{
	int err = 0, dirty = 1;

	while (!err && !t->quit && !tui_g.sig) {
		struct tui_screen *s;
		int ch, r;

		if (dirty) {
			err = tui_draw(t);
			dirty = 0;
			if (err || t->o->draw_once)
				break;
		}
		ch = getch();
		if (ch == ERR)
			continue;
		t->msg[0] = '\0';
		dirty = 1;
		s = tui_top(t);
		r = ch == KEY_RESIZE ? TUI_KEY_UNUSED : s->key(s, t, ch);
		if (r < 0)
			err = r;
		else if (r == TUI_KEY_UNUSED)
			err = tui_key(t, ch);
	}
	return err;
}

int tui_run(struct tui_screen **tabs, size_t n, const struct tui_opts *o, int *sig)
{
	struct tui t;
	int err;

	memset(&t, 0, sizeof(t));
	t.tabs = tabs;
	t.ntabs = n;
	t.o = o;
	t.cur = o->start < n ? o->start : 0;
	*sig = 0;
	if (!n)
		return -EINVAL;
	err = tui_start(&t);
	if (!err)
		err = tui_loop(&t);
	while (t.depth)
		tui_pop(&t);
	tui_stop(&t);
	*sig = tui_g.sig;
	return err;
}
