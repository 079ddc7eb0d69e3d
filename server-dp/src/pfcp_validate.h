/*
 * A PFCP session's rules (pfcp_rules.h) validated into what the data path
 * installs: a subscriber session (struct up_sub, one ops->install()) or the
 * default session (struct up_redirect, one ops->redirect()). Part of the
 * user-plane function (pfcp_up.h); docs/dp/pfcp.md section 5 lists what
 * each shape must carry and the causes of a refusal.
 *
 * The rules of a session are validated whole after every establishment or
 * modification, before the data path is called: a FAR with Destination
 * Interface CP-function makes it the default session, anything else must
 * be one subscriber (one upstream and one downstream PDR). Nothing here
 * changes state: up_validate() only reads the rules and fills *d.
 *
 * Plain C, control thread, no allocation.
 */

#ifndef BNG_PFCP_VALIDATE_H
#define BNG_PFCP_VALIDATE_H

#include <stdint.h>

#include "pfcp_rules.h"
#include "pfcp_up.h"

/* What a session's rules describe. */
struct up_derived {
	uint8_t kind;		       /* UP_KIND_SUBSCRIBER or UP_KIND_DEFAULT */
	struct up_sub sub;	       /* subscriber: the flat description */
	struct up_redirect redir;      /* default session: the control redirect */
	uint8_t dirs[UP_SESS_MAX_URR]; /* per URR of the rules: UP_DIR_* it measures */
};

/*
 * Validate rules r with session attributes a (names: where their strings
 * are interned) into *d (zeroed first). Every PDR must name an existing
 * FAR, QER and URRs. Returns 0, or -1 with *e set (cause, Offending IE or
 * Failed Rule ID).
 */
int up_validate(const struct up_names *names, const struct up_rules *r, const struct up_attr *a,
		struct up_derived *d, struct up_err *e);

/* UP_CHG_* bits of what differs between two subscriber descriptions. */
uint32_t up_sub_changes(const struct up_sub *o, const struct up_sub *n);

/*
 * The answer when ops->install() or ops->modify() refused rules r with rc:
 * -ENOSPC/-ENOMEM -> 75 No resources available; -ENOENT -> 70 Invalid
 * Forwarding Policy (Offending IE Forwarding Policy); any other -> 73 with
 * the upstream PDR as the Failed Rule ID.
 */
void up_ops_error(const struct up_rules *r, int rc, struct up_err *e);

#endif /* BNG_PFCP_VALIDATE_H */
