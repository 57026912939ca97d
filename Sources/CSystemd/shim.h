// libsystemd (Debian: libsystemd-dev): readiness and watchdog notification,
// socket activation, and the journal for a detached daemon's log.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

// sd_journal_print is variadic, which Swift cannot call; this passes one string.
static inline int lproj_journal_print(int priority, const char *message) {
    return sd_journal_print(priority, "%s", message);
}
