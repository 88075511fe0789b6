package act

import "k8s.io/apimachinery/pkg/types"

// slotLine is the line of owners refused a Service create slot. The first in line is woken
// when a slot is freed; an owner woken and beaten to the slot goes back to the front. Each
// place holds a ticket, so a place left behind by an owner served or forgotten meanwhile is
// skipped, and one that joins again queues anew.
type slotLine struct {
	front, back []place                         // the front (woken and beaten) first, then the back
	tickets     map[types.NamespacedName]uint64 // owners in line, by their place's ticket
	woken       map[types.NamespacedName]bool   // owners woken that have not come back
	issued      uint64
}

// place is an owner's place in line.
type place struct {
	owner  types.NamespacedName
	ticket uint64
}

func newSlotLine() slotLine {
	return slotLine{tickets: map[types.NamespacedName]uint64{}, woken: map[types.NamespacedName]bool{}}
}

// comeBack reports whether owner was woken, and forgets that it was.
func (l *slotLine) comeBack(owner types.NamespacedName) bool {
	woken := l.woken[owner]
	delete(l.woken, owner)
	return woken
}

// join puts owner in line, at the front when it was woken for a slot someone else took; an
// owner in line keeps its place.
func (l *slotLine) join(owner types.NamespacedName, front bool) {
	if _, in := l.tickets[owner]; in {
		return
	}
	l.issued++
	l.tickets[owner] = l.issued
	p := place{owner: owner, ticket: l.issued}
	if front {
		l.front = append(l.front, p)
	} else {
		l.back = append(l.back, p)
	}
}

// leave takes owner out of line (served, or gone).
func (l *slotLine) leave(owner types.NamespacedName) {
	delete(l.tickets, owner)
	delete(l.woken, owner)
}

// wakeNext takes the first owner in line out of it and marks it woken.
func (l *slotLine) wakeNext() (types.NamespacedName, bool) {
	for len(l.front)+len(l.back) > 0 {
		var p place
		if len(l.front) > 0 {
			p, l.front = l.front[0], l.front[1:]
		} else {
			p, l.back = l.back[0], l.back[1:]
		}
		if t, in := l.tickets[p.owner]; in && t == p.ticket {
			delete(l.tickets, p.owner)
			l.woken[p.owner] = true
			return p.owner, true
		}
	}
	return types.NamespacedName{}, false
}
