// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-audit render: a trace as an SVG timeline; see cs_trace.h.
 * Rows per CPU grouped by core, one colour per cookie (listed in a
 * legend), forced idle in grey, each overlap window as a red band across
 * its core's rows, and a time axis. Slices narrower than half a pixel that
 * follow one of the same colour are merged, so a long busy trace stays a
 * file a browser opens.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_trace.h"

#define SVG_WIDTH 1200 /* px */
#define SVG_LABEL 110 /* left column for row labels */
#define SVG_RIGHT 40
#define SVG_ROW 18
#define SVG_ROW_GAP 2
#define SVG_CORE_GAP 12
#define SVG_TOP 40
#define SVG_AXIS 40
#define SVG_LEGEND_ROW 18
#define SVG_TICKS 10 /* about this many ticks on the axis */
#define SVG_MERGE_PX 0.5
#define SVG_OVERLAP_COLOUR "#e00000"
#define SVG_IDLE_COLOUR "#b0b0b0"

struct svg {
	FILE *f;
	const struct cs_trace_data *d;
	double scale; /* px per us */
};

/*
 * Cookie colours: a categorical palette without red (red is overlap),
 * repeated darker once it runs out.
 */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
	"#edc948", "#9c755f", "#ff9da7", "#8cd17d", "#86bcb6",
};

static void colour(int name, char *buf, size_t len)
{
	int n = sizeof(palette) / sizeof(palette[0]);
	unsigned int r, g, b, dim = 100 - 25 * ((name / n) % 3);

	sscanf(palette[name % n], "#%2x%2x%2x", &r, &g, &b);
	snprintf(buf, len, "#%02x%02x%02x", r * dim / 100, g * dim / 100,
		 b * dim / 100);
}

static void escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

static double x_of(const struct svg *g, double ts)
{
	return SVG_LABEL + ts * g->scale;
}

static void rect(const struct svg *g, double x0, double x1, double y,
		 double h, const char *fill, const char *title)
{
	fprintf(g->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"",
		x0, y, x1 - x0 > 0.3 ? x1 - x0 : 0.3, h, fill);
	if (title) {
		fputs("><title>", g->f);
		escape(g->f, title);
		fputs("</title></rect>\n", g->f);
	} else {
		fputs("/>\n", g->f);
	}
}

static const char *slice_fill(const struct svg *g,
			      const struct cs_trace_slice *s, char *buf,
			      size_t len)
{
	if (s->overlap)
		return SVG_OVERLAP_COLOUR;
	if (s->forced_idle || s->name < 0)
		return SVG_IDLE_COLOUR;
	(void)g;
	colour(s->name, buf, len);
	return buf;
}

/* One CPU row: its slices, merged where they are too thin to see. */
static void draw_row(const struct svg *g, const struct cs_trace_track *t,
		     double y)
{
	char fill[32], pend_fill[32] = "";
	double px0 = 0, px1 = -1;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		const struct cs_trace_slice *s = &t->s[i];
		double x0 = x_of(g, s->ts), x1 = x_of(g, s->ts + s->dur);
		const char *c = slice_fill(g, s, fill, sizeof(fill));

		if (px1 >= 0 && !strcmp(c, pend_fill) &&
		    x0 - px1 < SVG_MERGE_PX) {
			if (x1 > px1)
				px1 = x1;
			continue;
		}
		if (px1 >= 0)
			rect(g, px0, px1, y, SVG_ROW, pend_fill, NULL);
		snprintf(pend_fill, sizeof(pend_fill), "%s", c);
		px0 = x0;
		px1 = x1;
	}
	if (px1 >= 0)
		rect(g, px0, px1, y, SVG_ROW, pend_fill, NULL);
}

static int cmp_track(const void *x, const void *y)
{
	const struct cs_trace_track *a = *(const struct cs_trace_track *const *)x;
	const struct cs_trace_track *b = *(const struct cs_trace_track *const *)y;

	if (a->pid != b->pid)
		return a->pid - b->pid;
	return a->tid - b->tid;
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for @span us. */
static double tick_step(double span)
{
	double raw = span / SVG_TICKS, p = pow(10, floor(log10(raw)));

	if (raw / p < 1.5)
		return p;
	if (raw / p < 3.5)
		return 2 * p;
	if (raw / p < 7.5)
		return 5 * p;
	return 10 * p;
}

static void axis(const struct svg *g, double y)
{
	double span = g->d->t_end, step = tick_step(span > 0 ? span : 1), t;
	bool ms = step >= 100;

	fprintf(g->f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
		SVG_LABEL, y, x_of(g, span), y);
	for (t = 0; t <= span + step / 2; t += step) {
		fprintf(g->f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\"/>\n",
			x_of(g, t), y, x_of(g, t), y + 5);
		fprintf(g->f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%g %s</text>\n",
			x_of(g, t), y + 18, ms ? t / 1000 : t, ms ? "ms" : "us");
	}
}

static void legend(const struct svg *g, double y)
{
	char fill[32];
	int i;
	double x = SVG_LABEL;

	rect(g, x, x + 12, y - 10, 12, SVG_OVERLAP_COLOUR, NULL);
	fprintf(g->f, "<text x=\"%.1f\" y=\"%.1f\">overlap</text>\n", x + 16, y);
	rect(g, x + 90, x + 102, y - 10, 12, SVG_IDLE_COLOUR, NULL);
	fprintf(g->f, "<text x=\"%.1f\" y=\"%.1f\">forced idle</text>\n",
		x + 106, y);
	for (i = 0; i < g->d->nr_names; i++) {
		double yy = y + (i + 1) * SVG_LEGEND_ROW;

		colour(i, fill, sizeof(fill));
		rect(g, x, x + 12, yy - 10, 12, fill, NULL);
		fprintf(g->f, "<text x=\"%.1f\" y=\"%.1f\">", x + 16, yy);
		escape(g->f, g->d->names[i]);
		fputs("</text>\n", g->f);
	}
}

void cs_trace_svg(FILE *f, const struct cs_trace_data *d, const char *title)
{
	const struct cs_trace_track **rows;
	struct svg g = { f, d, 0 };
	double y = SVG_TOP, height, core_y = 0;
	int i, n = 0, pid = -1, nr_cores = 0;

	rows = calloc(d->nr_tracks ? d->nr_tracks : 1, sizeof(*rows));
	if (!rows)
		return;
	for (i = 0; i < d->nr_tracks; i++)
		rows[n++] = &d->track[i];
	qsort(rows, n, sizeof(*rows), cmp_track);
	for (i = 0; i < n; i++)
		nr_cores += !i || rows[i]->pid != rows[i - 1]->pid;
	g.scale = (SVG_WIDTH - SVG_LABEL - SVG_RIGHT) /
		  (d->t_end > 0 ? d->t_end : 1);
	height = SVG_TOP + n * (SVG_ROW + SVG_ROW_GAP) + nr_cores * SVG_CORE_GAP +
		 SVG_AXIS + (d->nr_names + 2) * SVG_LEGEND_ROW;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		   "<text x=\"%d\" y=\"22\" font-size=\"15\">",
		SVG_WIDTH, height, SVG_LABEL);
	escape(f, title);
	fputs("</text>\n", f);
	for (i = 0; i < n; i++) {
		const struct cs_trace_track *t = rows[i];
		bool overlap_row = t->tid >= CS_TRACE_OVERLAP_TID;
		size_t j;

		if (t->pid != pid) {
			if (pid >= 0)
				y += SVG_CORE_GAP;
			pid = t->pid;
			core_y = y;
			if (pid < d->nr_procs && d->proc_name[pid]) {
				fprintf(f, "<text x=\"4\" y=\"%.1f\" font-weight=\"bold\">",
					y - 2);
				escape(f, d->proc_name[pid]);
				fputs("</text>\n", f);
			}
		}
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			SVG_LABEL - 6, y + SVG_ROW - 5);
		escape(f, t->name ? t->name : "?");
		fputs("</text>\n", f);
		if (!overlap_row) {
			draw_row(&g, t, y);
		} else {
			/* A red band across the core's rows, and in its own. */
			for (j = 0; j < t->nr; j++) {
				const struct cs_trace_slice *s = &t->s[j];
				char what[64];

				double x0 = x_of(&g, s->ts), x1 = x_of(&g, s->ts + s->dur);

				/* At least a pixel, however short. */
				if (x1 < x0 + 1)
					x1 = x0 + 1;
				snprintf(what, sizeof(what), "overlap %.3f us",
					 s->dur);
				fprintf(f, "<g opacity=\"0.35\">");
				rect(&g, x0, x1, core_y, y - core_y,
				     SVG_OVERLAP_COLOUR, NULL);
				fputs("</g>\n", f);
				rect(&g, x0, x1, y, SVG_ROW, SVG_OVERLAP_COLOUR,
				     what);
			}
		}
		y += SVG_ROW + SVG_ROW_GAP;
	}
	axis(&g, y + 4);
	legend(&g, y + SVG_AXIS + 10);
	fputs("</svg>\n", f);
	free(rows);
}
