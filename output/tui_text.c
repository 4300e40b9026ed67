// SPDX-License-Identifier: GPL-2.0-only
/* A scrolling page of text (help, row details): see tui_text_new(). */
#include <curses.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/tui.h"

struct tui_text {
	char *text;
	char **line;   /* into text, '\n' replaced by NUL */
	size_t nlines;
	size_t top;    /* first shown row of the wrapped text */
	size_t rows;   /* wrapped rows at the last draw's width */
	int width;
};

static size_t text_rows(const char *s, int w)
{
	size_t n = strlen(s);

	return n ? (n + (size_t)w - 1) / (size_t)w : 1;
}

static int text_draw(struct tui_screen *s, struct tui *t, const struct tui_area *a)
{
	struct tui_text *x = s->priv;
	size_t row = 0;
	int y = a->y;

	(void)t;
	x->width = a->w > 1 ? a->w - 1 : 1;
	x->rows = 0;
	for (size_t i = 0; i < x->nlines; i++)
		x->rows += text_rows(x->line[i], x->width);
	if (x->top + (size_t)a->h > x->rows)
		x->top = x->rows > (size_t)a->h ? x->rows - (size_t)a->h : 0;
	for (size_t i = 0; i < x->nlines && y < a->y + a->h; i++) {
		const char *l = x->line[i];
		size_t nr = text_rows(l, x->width);

		for (size_t r = 0; r < nr && y < a->y + a->h; r++, row++) {
			size_t off = r * (size_t)x->width;

			if (row < x->top)
				continue;
			tui_put(y++, a->x + 1, x->width, A_NORMAL, off < strlen(l) ? l + off : "");
		}
	}
	return 0;
}

static int text_key(struct tui_screen *s, struct tui *t, int key)
{
	struct tui_text *x = s->priv;
	size_t page = LINES > 4 ? (size_t)LINES - 4 : 1;

	(void)t;
	switch (key) {
	case KEY_UP:
		x->top -= x->top > 0;
		return 0;
	case KEY_DOWN:
		x->top++;
		return 0;
	case KEY_PPAGE:
		x->top = x->top > page ? x->top - page : 0;
		return 0;
	case KEY_NPAGE:
	case ' ':
		x->top += page;
		return 0;
	case KEY_HOME:
	case 'g':
		x->top = 0;
		return 0;
	case KEY_END:
	case 'G':
		x->top = x->rows;
		return 0;
	default:
		return TUI_KEY_UNUSED;
	}
}

/* Scroll to the next line holding text, case-insensitively. */
static int text_find(struct tui_screen *s, struct tui *t, const char *q, int dir)
{
	struct tui_text *x = s->priv;
	size_t row = 0, cur = (size_t)-1;

	(void)t;
	/* The logical line at the top row. */
	for (size_t i = 0; i < x->nlines && cur == (size_t)-1; i++) {
		size_t nr = text_rows(x->line[i], x->width ? x->width : 80);

		if (row + nr > x->top)
			cur = i;
		row += nr;
	}
	if (cur == (size_t)-1)
		cur = 0;
	for (size_t k = 1; k <= x->nlines; k++) {
		size_t i = (cur + x->nlines + (dir > 0 ? k : x->nlines - k)) % x->nlines;

		if (strcasestr(x->line[i], q)) {
			row = 0;
			for (size_t j = 0; j < i; j++)
				row += text_rows(x->line[j], x->width ? x->width : 80);
			x->top = row;
			return 1;
		}
	}
	return 0;
}

static void text_destroy(struct tui_screen *s)
{
	struct tui_text *x = s->priv;

	if (x) {
		free(x->text);
		free(x->line);
		free(x);
	}
	free(s);
}

static const char text_keys[] =
	"Up, Down\tscroll a line\n"
	"PgUp, PgDn, Space\tscroll a page\n"
	"Home, End, g, G\tfirst, last page\n";

struct tui_screen *tui_text_new(const char *name, const char *text)
{
	struct tui_screen *s = calloc(1, sizeof(*s));
	struct tui_text *x = calloc(1, sizeof(*x));
	size_t n = 1;
	int err = -ENOMEM;

	if (!s || !x || !text)
		goto out;
	x->text = strdup(text);
	for (const char *c = text; *c; c++)
		n += *c == '\n';
	x->line = calloc(n, sizeof(*x->line));
	if (!x->text || !x->line)
		goto out;
	for (char *c = x->text, *e; c; c = e) {
		e = strchr(c, '\n');
		if (e)
			*e++ = '\0';
		if (*c || e)
			x->line[x->nlines++] = c;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->keys = text_keys;
	s->priv = x;
	s->draw = text_draw;
	s->key = text_key;
	s->find = text_find;
	s->destroy = text_destroy;
	err = 0;
out:
	if (err) {
		if (x) {
			free(x->text);
			free(x->line);
		}
		free(x);
		free(s);
		s = NULL;
	}
	return s;
}
