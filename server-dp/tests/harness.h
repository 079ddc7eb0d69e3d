/* Shared pass/fail counting for the C test programs.
 *
 * Each test is a single translation unit, so the counters live here as
 * statics. check() counts one assertion and prints "FAIL name: what" when it
 * does not hold (CHECKF() names it with a printf format); harness_report()
 * prints the last line, "N passed, M failed", and returns the exit status
 * (1 when M > 0).
 *
 * Define HARNESS_EAL before including this header to get harness_eal_init(),
 * which starts the EAL in memory (--no-huge -m 128 --no-pci --no-shconf
 * --no-telemetry: no socket, and no probing of other processes' sockets).
 */
#ifndef BNG_TESTS_HARNESS_H
#define BNG_TESTS_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#ifdef HARNESS_EAL
#include <rte_eal.h>
#include <rte_errno.h>
#endif

static unsigned int n_passed, n_failed;

static inline void
check(bool ok, const char *name, const char *what)
{
	if (ok) {
		n_passed++;
	} else {
		n_failed++;
		printf("FAIL %s: %s\n", name, what);
	}
}

/* check() named by a printf format: CHECKF(cond, "case %d", i). */
#define CHECKF(cond, ...) harness_checkf((cond), #cond, __VA_ARGS__)

static inline void __attribute__((format(printf, 3, 4)))
harness_checkf(bool ok, const char *what, const char *fmt, ...)
{
	char name[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	check(ok, name, what);
}

static inline int
harness_report(void)
{
	printf("%u passed, %u failed\n", n_passed, n_failed);
	return n_failed > 0;
}

#ifdef HARNESS_EAL
/* 0 on success; on failure prints the reason and "0 passed, 1 failed". */
static inline int
harness_eal_init(char *prog)
{
	char *eal_argv[] = {prog,
			    "--no-huge",
			    "-m",
			    "128",
			    "--no-pci",
			    "--no-shconf",
			    "--no-telemetry",
			    "--log-level=error",
			    NULL};

	if (rte_eal_init(8, eal_argv) < 0) {
		printf("FAIL EAL init (--no-huge -m 128 --no-pci --no-shconf --no-telemetry): %s\n"
		       "0 passed, 1 failed\n",
		       rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}
#endif

#endif /* BNG_TESTS_HARNESS_H */
