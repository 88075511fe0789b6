package act

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// slotLine is the line of owners refused a slot. Owners wait in groups (their namespace for
// jar fetches; Service creates have one group). A freed slot wakes the first owner of the
// group served least recently (a group never served first; between two served alike, the one
// that began to wait first), so a group with many owners waiting gets no more turns than a
// group with one. Within a group owners are woken in order, and an owner woken and beaten to
// the slot goes back to the front. Each place holds a ticket, so a place left behind by an
// owner served or forgotten meanwhile is skipped, and one that joins again queues anew.
type slotLine struct {
	group   func(types.NamespacedName) string // an owner's group (nil: one group)
	groups  map[string]*lineGroup             // groups with places, some perhaps left behind
	served  map[string]uint64                 // the tick each group was last served or woken at
	tickets map[types.NamespacedName]uint64   // owners in line, by their place's ticket
	woken   map[types.NamespacedName]bool     // owners woken that have not come back
	issued  uint64                            // the last ticket or tick handed out
}

// place is an owner's place in line.
type place struct {
	owner  types.NamespacedName
	ticket uint64
}

// lineGroup is the places of one group: the front (woken and beaten) first, then the back.
type lineGroup struct {
	front, back []place
	since       uint64 // the ticket of the place the group began to wait with
}

// maxServedGroups bounds how many groups' last turns the line remembers; beyond it, the
// older half of those not waiting are forgotten (they count as never served again).
const maxServedGroups = 4096

// newSlotLine returns an empty line whose owners wait in the groups group puts them in (nil:
// one group, first come first woken).
func newSlotLine(group func(types.NamespacedName) string) slotLine {
	return slotLine{
		group: group, groups: map[string]*lineGroup{}, served: map[string]uint64{},
		tickets: map[types.NamespacedName]uint64{}, woken: map[types.NamespacedName]bool{},
	}
}

func (l *slotLine) groupOf(owner types.NamespacedName) string {
	if l.group == nil {
		return ""
	}
	return l.group(owner)
}

// comeBack reports whether owner was woken, and forgets that it was.
func (l *slotLine) comeBack(owner types.NamespacedName) bool {
	woken := l.woken[owner]
	delete(l.woken, owner)
	return woken
}

// join puts owner in line, at the front of its group when it was woken for a slot someone
// else took; an owner in line keeps its place.
func (l *slotLine) join(owner types.NamespacedName, front bool) {
	if _, in := l.tickets[owner]; in {
		return
	}
	l.issued++
	l.tickets[owner] = l.issued
	name := l.groupOf(owner)
	g := l.groups[name]
	if g == nil {
		g = &lineGroup{since: l.issued}
		l.groups[name] = g
	}
	p := place{owner: owner, ticket: l.issued}
	if front {
		g.front = append(g.front, p)
	} else {
		g.back = append(g.back, p)
	}
}

// leave takes owner out of line (served, or gone).
func (l *slotLine) leave(owner types.NamespacedName) {
	delete(l.tickets, owner)
	delete(l.woken, owner)
}

// serve takes owner out of line as it takes a slot: its group's turn is over, and the group
// waits behind every group not served since.
func (l *slotLine) serve(owner types.NamespacedName) {
	l.leave(owner)
	l.turn(l.groupOf(owner))
}

// wakeNext takes the first owner in line of a group eligible allows (nil: any) out of it and
// marks it woken; the group's turn is over.
func (l *slotLine) wakeNext(eligible func(group string) bool) (types.NamespacedName, bool) {
	for {
		name, g := l.nextGroup(eligible)
		if g == nil {
			return types.NamespacedName{}, false
		}
		p, found := g.pop(l.tickets)
		if len(g.front)+len(g.back) == 0 {
			delete(l.groups, name)
		}
		if found {
			delete(l.tickets, p.owner)
			l.woken[p.owner] = true
			l.turn(name)
			return p.owner, true
		}
	}
}

// nextGroup is the eligible group whose turn it is: served least recently, then waiting
// longest (tickets are unique, so the choice does not depend on the map's order).
func (l *slotLine) nextGroup(eligible func(group string) bool) (string, *lineGroup) {
	var best string
	var bg *lineGroup
	for name, g := range l.groups {
		if eligible != nil && !eligible(name) {
			continue
		}
		if bg == nil || l.served[name] < l.served[best] || (l.served[name] == l.served[best] && g.since < bg.since) {
			best, bg = name, g
		}
	}
	return best, bg
}

// pop takes the group's first place that still holds its owner's ticket; places left behind
// before it are dropped.
func (g *lineGroup) pop(tickets map[types.NamespacedName]uint64) (place, bool) {
	for len(g.front)+len(g.back) > 0 {
		var p place
		if len(g.front) > 0 {
			p, g.front = g.front[0], g.front[1:]
		} else {
			p, g.back = g.back[0], g.back[1:]
		}
		if t, in := tickets[p.owner]; in && t == p.ticket {
			return p, true
		}
	}
	return place{}, false
}

// turn records that group was just served.
func (l *slotLine) turn(group string) {
	l.issued++
	l.served[group] = l.issued
	if len(l.served) <= maxServedGroups {
		return
	}
	var idle []uint64
	for name, t := range l.served {
		if l.groups[name] == nil {
			idle = append(idle, t)
		}
	}
	slices.Sort(idle)
	if len(idle) == 0 {
		return
	}
	median := idle[len(idle)/2]
	for name, t := range l.served {
		if l.groups[name] == nil && t < median {
			delete(l.served, name)
		}
	}
}
