package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"
)

// Periodic is when a periodic snapshot is due (kubernetes.operator.periodic.savepoint.interval
// and .checkpoint.interval): every Every, or at the times of a Quartz cron expression, as the
// Apache operator takes either. The zero value is off.
type Periodic struct {
	// Every is the interval (0 with a nil Cron: off).
	Every time.Duration
	// Cron is the schedule of a cron expression (nil for an interval); Expr is its text.
	Cron robfig.Schedule
	Expr string
}

// On reports whether snapshots are taken at all.
func (p Periodic) On() bool { return p.Every > 0 || p.Cron != nil }

// Next is when the snapshot after one taken at last is due: an interval after it, or the
// schedule's next time after it; never sooner than MinPeriodicSavepoint after it (a cron
// expression may fire every second). It is the zero time when p is off.
func (p Periodic) Next(last time.Time) time.Time {
	switch {
	case p.Cron != nil:
		next := p.Cron.Next(last)
		if next.IsZero() {
			return next // never fires
		}
		return maxTime(next, last.Add(MinPeriodicSavepoint))
	case p.Every > 0:
		return last.Add(p.Every)
	}
	return time.Time{}
}

// String is the interval or the cron expression.
func (p Periodic) String() string {
	if p.Cron != nil {
		return p.Expr
	}
	return p.Every.String()
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ParsePeriodic reads a periodic snapshot option: a duration ("10m", "0" for off), or a Quartz
// cron expression of 6 or 7 fields ("0 0 * * * ?": hourly).
func ParsePeriodic(v string) (Periodic, error) {
	v = strings.TrimSpace(v)
	if d, err := ParseDuration(v); err == nil {
		return Periodic{Every: d}, nil
	}
	s, err := ParseQuartz(v)
	if err != nil {
		return Periodic{}, fmt.Errorf("%q is neither a duration nor a Quartz cron expression: %w", v, err)
	}
	return Periodic{Cron: s, Expr: v}, nil
}

// quartzParser reads the six fields a Quartz expression keeps after ParseQuartz: seconds
// first, and '?' for a day field left open.
var quartzParser = robfig.NewParser(robfig.Second | robfig.Minute | robfig.Hour | robfig.Dom | robfig.Month | robfig.Dow)

// ParseQuartz reads a Quartz cron expression: seconds, minutes, hours, day of month, month,
// day of week (1–7 from Sunday, or SUN–SAT), and an optional year that must be open ('*' or
// '?'). As in Quartz, exactly one of the two day fields is '?'. Quartz's L, W and # are refused
// (the parser underneath has no such days).
func ParseQuartz(expr string) (robfig.Schedule, error) {
	fields := strings.Fields(expr)
	if len(fields) != 6 && len(fields) != 7 {
		return nil, fmt.Errorf("a Quartz expression has 6 or 7 fields, this one %d", len(fields))
	}
	if len(fields) == 7 {
		if y := fields[6]; y != "*" && y != "?" {
			return nil, fmt.Errorf("the year field must be * or ? (years are not supported), not %q", y)
		}
		fields = fields[:6]
	}
	if (fields[3] == "?") == (fields[5] == "?") {
		// Quartz's CronExpression refuses both: one day field must be left open.
		return nil, errors.New("support for specifying both a day-of-week AND a day-of-month parameter is not implemented: set exactly one of the day fields to ?")
	}
	if strings.ContainsAny(strings.ToUpper(fields[3]), "LW") {
		return nil, fmt.Errorf("day of month %q: L and W are not supported", fields[3])
	}
	if strings.ContainsAny(strings.ToUpper(fields[5]), "L#") {
		return nil, fmt.Errorf("day of week %q: L and # are not supported", fields[5])
	}
	dow, err := quartzDays(fields[5])
	if err != nil {
		return nil, err
	}
	fields[5] = dow
	return quartzParser.Parse(strings.Join(fields, " "))
}

// quartzDays turns Quartz's day-of-week numbers (1 = Sunday … 7 = Saturday) into the
// parser's (0 = Sunday … 6); names, '*' and '?' pass unchanged, and so do steps.
func quartzDays(field string) (string, error) {
	parts := strings.Split(field, ",")
	for i, part := range parts {
		base, step, stepped := strings.Cut(part, "/")
		ends := strings.Split(base, "-")
		for j, e := range ends {
			n, err := strconv.Atoi(e)
			if err != nil {
				continue // a name, '*' or '?'
			}
			if n < 1 || n > 7 {
				return "", fmt.Errorf("day of week %d is not between 1 (Sunday) and 7 (Saturday)", n)
			}
			ends[j] = strconv.Itoa(n - 1)
		}
		parts[i] = strings.Join(ends, "-")
		if stepped {
			parts[i] += "/" + step
		}
	}
	return strings.Join(parts, ","), nil
}
