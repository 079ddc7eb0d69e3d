/*
 * Reference line lookup for the classifier's tests and fuzzer: a linear scan of
 * the configuration, obviously right and slow, to check the line map against.
 */
#ifndef BNG_CLASSIFY_REF_H
#define BNG_CLASSIFY_REF_H

#include "classify.h"

static inline uint16_t
ref_lookup(const struct dp_config *cfg, unsigned int s, unsigned int c)
{
	for (unsigned int i = 0; i < cfg->n_lines; i++) {
		const struct dp_line *l = &cfg->lines[i];

		if (s >= l->stag.lo && s <= l->stag.hi && c >= l->ctag.lo && c <= l->ctag.hi)
			return (uint16_t)i;
	}
	return CLS_NO_LINE;
}

#endif /* BNG_CLASSIFY_REF_H */
