/*
 * The user-plane function's session indexes (pfcp_index.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp_index.h"

int
up_index_init(struct up_index *h, uint32_t capacity)
{
	uint32_t n = 16;

	while (n < capacity * 2u)
		n <<= 1;
	h->keys = calloc(n, sizeof(*h->keys));
	h->vals = malloc(n * sizeof(*h->vals));
	if (h->keys == NULL || h->vals == NULL)
		return -ENOMEM;
	memset(h->vals, 0xff, n * sizeof(*h->vals));
	h->mask = n - 1;
	return 0;
}

void
up_index_free(struct up_index *h)
{
	free(h->keys);
	free(h->vals);
}

uint32_t
up_index_find(const struct up_index *h, uint64_t k)
{
	uint32_t i = up_mix64(k) & h->mask;

	while (h->vals[i] != UP_NONE) {
		if (h->keys[i] == k)
			return h->vals[i];
		i = (i + 1) & h->mask;
	}
	return UP_NONE;
}

void
up_index_put(struct up_index *h, uint64_t k, uint32_t v)
{
	uint32_t i = up_mix64(k) & h->mask;

	while (h->vals[i] != UP_NONE && h->keys[i] != k)
		i = (i + 1) & h->mask;
	h->keys[i] = k;
	h->vals[i] = v;
}

/* Backward-shift deletion: no tombstones. */
void
up_index_del(struct up_index *h, uint64_t k, uint32_t v)
{
	uint32_t i = up_mix64(k) & h->mask, j;

	while (h->vals[i] != UP_NONE && h->keys[i] != k)
		i = (i + 1) & h->mask;
	if (h->vals[i] == UP_NONE || h->vals[i] != v)
		return;
	h->vals[i] = UP_NONE;
	j = i;
	for (;;) {
		uint32_t home;

		j = (j + 1) & h->mask;
		if (h->vals[j] == UP_NONE)
			return;
		home = up_mix64(h->keys[j]) & h->mask;
		/* move j to the hole at i unless its home lies cyclically in (i, j] */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			h->keys[i] = h->keys[j];
			h->vals[i] = h->vals[j];
			h->vals[j] = UP_NONE;
			i = j;
		}
	}
}
