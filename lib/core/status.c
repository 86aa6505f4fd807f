/* Status codes and the diagnostic record: hy_diag_set, the status names and
 * exit codes (status.h). */
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names[HY_STATUS_COUNT] = {
	[HY_OK] = "ok",
	[HY_EDATA] = "malformed input",
	[HY_ETRUNC] = "truncated input",
	[HY_EFORMAT] = "unrecognised format",
	[HY_EVERSION] = "unsupported format version",
	[HY_EIO] = "input/output error",
	[HY_ENOMEM] = "out of memory",
	[HY_EUSAGE] = "invalid argument",
	[HY_EUNSUP] = "unsupported input",
	[HY_STOP] = "stopped",
};

const char *hy_status_str(hy_status s)
{
	if ((unsigned)s >= HY_STATUS_COUNT)
		return "unknown status";
	return names[s];
}

int hy_status_exit(hy_status s)
{
	switch (s) {
	case HY_OK:
	case HY_STOP:
		return 0;
	case HY_EUSAGE:
		return 2;
	case HY_EFORMAT:
	case HY_EVERSION:
		return 3;
	default:
		return 1;
	}
}

void hy_diag_init(hy_diag *d, const char *source)
{
	memset(d, 0, sizeof *d);
	d->game = UINT32_MAX;
	if (source)
		snprintf(d->source, sizeof d->source, "%s", source);
}

hy_status hy_diag_set(hy_diag *d, hy_status s, uint32_t line, const char *fmt, ...)
{
	if (!d)
		return s;
	d->status = s;
	d->line = line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return s;
}

const char *hy_diag_format(const hy_diag *d, char *buf, int size)
{
	const char *src = d->source[0] ? d->source : "(input)";
	if (d->line)
		snprintf(buf, size, "%s:%u: %s", src, d->line, d->msg);
	else if (d->game != UINT32_MAX)
		snprintf(buf, size, "%s: game %u: %s", src, d->game + 1, d->msg);
	else
		snprintf(buf, size, "%s: %s", src, d->msg);
	return buf;
}
