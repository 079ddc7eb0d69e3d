/*
 * bng-dp frame classifier: building the line map (control thread) and the
 * names of kinds and drop reasons. The per-packet code is in classify.h.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

const char *const cls_kind_names[CLS_KIND_MAX] = {
#define CLS_KIND_DEF(sym, name) [CLS_##sym] = name,
#include "classify.def"
#undef CLS_KIND_DEF
};

const char *const cls_drop_names[CLS_DROP_MAX] = {
#define CLS_DROP_DEF(sym, name) [CLS_DROP_##sym] = name,
#include "classify.def"
#undef CLS_DROP_DEF
};

_Static_assert(DP_MAX_LINES < LM_LIST_FLAG, "line index must not reach the list flag");
_Static_assert(LM_MAX_LISTS <= LM_LIST_FLAG - 1, "list id must fit below the flag");
_Static_assert(LM_MAX_CRANGES <= 65535, "crange index is 16 bits");
_Static_assert(DP_VLAN_ID_MAX < LM_NUM_STAGS, "S-tag table covers every VLAN id");

static int
fail(struct line_map *m, char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	memset(m, 0, sizeof(*m));
	memset(m->stag, 0xff, sizeof(m->stag));
	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int
cmp_crange(const void *a, const void *b)
{
	const struct lm_crange *x = a, *y = b;

	return (int)x->lo - (int)y->lo;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int
range_ok(const struct dp_tag_range *r)
{
	return r->lo >= DP_VLAN_ID_MIN && r->lo <= r->hi && r->hi <= DP_VLAN_ID_MAX;
}

int
line_map_build(struct line_map *m, const struct dp_config *cfg, char *err, size_t errlen)
{
	struct lm_crange tmp[DP_MAX_LINES];
	const struct lm_list *prev;
	unsigned int s, i, n, ng;

	memset(m, 0, sizeof(*m));
	memset(m->stag, 0xff, sizeof(m->stag));
	if (cfg->n_lines > DP_MAX_LINES || cfg->n_line_groups > DP_MAX_LINE_GROUPS)
		return fail(m, err, errlen, -EINVAL, "line map: %u lines / %u groups over limit",
			    cfg->n_lines, cfg->n_line_groups);
	if (cfg->core.vlan > DP_VLAN_ID_MAX)
		return fail(m, err, errlen, -EINVAL, "line map: core vlan %u out of range",
			    cfg->core.vlan);
	m->core_vlan = cfg->core.vlan;
	m->n_lines = cfg->n_lines;
	for (i = 0; i < cfg->n_lines; i++) {
		const struct dp_line *l = &cfg->lines[i];

		if (l->group >= cfg->n_line_groups || !range_ok(&l->stag) || !range_ok(&l->ctag))
			return fail(m, err, errlen, -EINVAL, "line map: line.%u is invalid", i);
		m->lines[i].ctag_lo = l->ctag.lo;
		m->lines[i].ctag_hi = l->ctag.hi;
		m->lines[i].group = l->group;
		m->lines[i].flags =
			(cfg->line_groups[l->group].session_types & DP_SESSION_TYPE_IPOE)
				? LM_LINE_IPOE
				: 0;
		m->lines[i].ac_mac = mac_key(cfg->line_groups[l->group].ac_mac);
	}

	/* Per S-tag: the lines that cover it, in C-tag order. */
	for (s = DP_VLAN_ID_MIN; s <= DP_VLAN_ID_MAX; s++) {
		n = 0;
		for (i = 0; i < cfg->n_lines; i++) {
			const struct dp_line *l = &cfg->lines[i];

			if (s < l->stag.lo || s > l->stag.hi || cfg->line_groups[l->group].standby)
				continue;
			tmp[n].lo = l->ctag.lo;
			tmp[n].hi = l->ctag.hi;
			tmp[n].line = (uint16_t)i;
			n++;
		}
		if (n == 0)
			continue;
		if (n == 1) {
			m->stag[s] = tmp[0].line;
			continue;
		}
		qsort(tmp, n, sizeof(tmp[0]), cmp_crange);
		for (i = 1; i < n; i++)
			if (tmp[i].lo <= tmp[i - 1].hi)
				return fail(m, err, errlen, -EINVAL,
					    "line map: line.%u and line.%u overlap on S-tag %u",
					    tmp[i - 1].line, tmp[i].line, s);
		/* Neighbouring S-tags usually share their lines: reuse the last run. */
		if (m->n_lists > 0) {
			prev = &m->lists[m->n_lists - 1];
			if (prev->count == n &&
			    memcmp(&m->cranges[prev->first], tmp, n * sizeof(tmp[0])) == 0) {
				m->stag[s] = (uint16_t)(LM_LIST_FLAG | (m->n_lists - 1u));
				continue;
			}
		}
		if (m->n_lists >= LM_MAX_LISTS || m->n_cranges + n > LM_MAX_CRANGES)
			return fail(m, err, errlen, -ENOSPC,
				    "line map: S-tags shared by several lines need more than %u "
				    "runs / %u C-ranges",
				    LM_MAX_LISTS, LM_MAX_CRANGES);
		m->lists[m->n_lists].first = m->n_cranges;
		m->lists[m->n_lists].count = (uint16_t)n;
		memcpy(&m->cranges[m->n_cranges], tmp, n * sizeof(tmp[0]));
		m->n_cranges = (uint16_t)(m->n_cranges + n);
		m->stag[s] = (uint16_t)(LM_LIST_FLAG | m->n_lists);
		m->n_lists++;
	}

	/* Core MACs: sorted and unique, for the binary search. */
	n = 0;
	for (i = 0; i < cfg->n_line_groups; i++)
		if (!cfg->line_groups[i].standby)
			m->core_macs[n++] = mac_key(cfg->line_groups[i].core_mac);
	qsort(m->core_macs, n, sizeof(m->core_macs[0]), cmp_u64);
	ng = 0;
	for (i = 0; i < n; i++)
		if (ng == 0 || m->core_macs[ng - 1] != m->core_macs[i])
			m->core_macs[ng++] = m->core_macs[i];
	for (i = ng; i < LM_MAX_CORE_MACS; i++)
		m->core_macs[i] = 0;
	m->n_core_macs = (uint16_t)ng;
	return 0;
}
