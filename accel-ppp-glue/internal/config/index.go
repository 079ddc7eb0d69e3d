package config

import (
	"sort"
)

// ---- S-tag to access port ----------------------------------------------------

// tagEvent opens (at STag.Min) or closes (at STag.Max+1) a line in a sweep
// over S-tags.
type tagEvent struct {
	pos  int
	open bool
	l    *Line
	seq  int // document order, for deterministic reports
}

// sweepEvents returns the open and close events of lines, sorted by S-tag,
// closes before opens at the same S-tag, then in document order.
func sweepEvents(lines []*Line) []tagEvent {
	ev := make([]tagEvent, 0, 2*len(lines))
	for i, l := range lines {
		ev = append(ev,
			tagEvent{pos: int(l.STag.Min), open: true, l: l, seq: i},
			tagEvent{pos: int(l.STag.Max) + 1, open: false, l: l, seq: i})
	}
	sort.Slice(ev, func(i, j int) bool {
		a, b := &ev[i], &ev[j]
		if a.pos != b.pos {
			return a.pos < b.pos
		}
		if a.open != b.open {
			return !a.open
		}
		return a.seq < b.seq
	})
	return ev
}

// checkSTagPorts reports S-tags that an instance serves on more than one
// access port: the access port of a redirected frame is derived from
// (instance, S-tag), so it must be unique.
func (b *builder) checkSTagPorts() {
	byInst := make(map[*Instance][]*Line)
	var order []*Instance
	for _, l := range b.lines {
		if _, seen := byInst[l.Instance]; !seen {
			order = append(order, l.Instance)
		}
		byInst[l.Instance] = append(byInst[l.Instance], l)
	}
	for _, inst := range order {
		lines := byInst[inst]
		active := make(map[*Line]int) // line -> seq, of lines whose S-tags are current
		perPort := make(map[*AccessPort]int)
		for _, e := range sweepEvents(lines) {
			if !e.open {
				if _, ok := active[e.l]; ok {
					delete(active, e.l)
					perPort[e.l.AccessPort]--
				}
				continue
			}
			if len(active)-perPort[e.l.AccessPort] > 0 {
				if !b.errs.full() {
					other := firstActive(active, func(o *Line) bool { return o.AccessPort != e.l.AccessPort })
					b.errorf(e.l.path+".stag", 0,
						"S-tag %s is served on access port %q by %s and on access port %q here; an instance serves each S-tag on one access port only",
						e.l.STag.intersect(other.STag), other.AccessPort.Name, other.path, e.l.AccessPort.Name)
				}
				continue // left out of the sweep: its close event finds it inactive
			}
			active[e.l] = e.seq
			perPort[e.l.AccessPort]++
		}
	}
}

// firstActive returns the line in document order among active ones matching
// pred; one must exist.
func firstActive(active map[*Line]int, pred func(*Line) bool) *Line {
	var best *Line
	bestSeq := 0
	for l, seq := range active {
		if pred(l) && (best == nil || seq < bestSeq) {
			best, bestSeq = l, seq
		}
	}
	return best
}

// ---- (S-tag, C-tag) overlaps -----------------------------------------------------

// tagSet is a set of VLAN ids 0..4095.
type tagSet [4096 / 64]uint64

// words calls f for each word of the set overlapping [lo, hi] with the mask
// of the bits inside the range.
func (s *tagSet) words(lo, hi uint16, f func(w *uint64, mask uint64) bool) {
	for i := lo / 64; i <= hi/64; i++ {
		mask := ^uint64(0)
		if i == lo/64 {
			mask &= ^uint64(0) << (lo % 64)
		}
		if i == hi/64 {
			mask &= ^uint64(0) >> (63 - hi%64)
		}
		if !f(&s[i], mask) {
			return
		}
	}
}

func (s *tagSet) any(r TagRange) bool {
	found := false
	s.words(r.Min, r.Max, func(w *uint64, mask uint64) bool {
		found = *w&mask != 0
		return !found
	})
	return found
}

func (s *tagSet) set(r TagRange, on bool) {
	s.words(r.Min, r.Max, func(w *uint64, mask uint64) bool {
		if on {
			*w |= mask
		} else {
			*w &^= mask
		}
		return true
	})
}

// checkLineOverlaps reports lines of an access port, in any instances,
// sharing an (S-tag, C-tag) pair. It sweeps over S-tags keeping the set of
// C-tags taken by the lines current at each S-tag.
func (b *builder) checkLineOverlaps() {
	byPort := make(map[*AccessPort][]*Line)
	var order []*AccessPort
	for _, l := range b.lines {
		if _, seen := byPort[l.AccessPort]; !seen {
			order = append(order, l.AccessPort)
		}
		byPort[l.AccessPort] = append(byPort[l.AccessPort], l)
	}
	for _, port := range order {
		var taken tagSet
		active := make(map[*Line]int)
		for _, e := range sweepEvents(byPort[port]) {
			if !e.open {
				if _, ok := active[e.l]; ok {
					delete(active, e.l)
					taken.set(e.l.CTag, false)
				}
				continue
			}
			if taken.any(e.l.CTag) {
				if !b.errs.full() {
					other := firstActive(active, func(o *Line) bool { return o.CTag.Overlaps(e.l.CTag) })
					b.errorf(e.l.path, 0, "overlaps %s on access port %q at S-tag %s, C-tag %s",
						other.path, port.Name, e.l.STag.intersect(other.STag), e.l.CTag.intersect(other.CTag))
				}
				continue
			}
			active[e.l] = e.seq
			taken.set(e.l.CTag, true)
		}
	}
}

// ---- lookup ------------------------------------------------------------------

// segLeaves is the number of leaves of the segment tree over S-tags; S-tags
// are 1..4094.
const segLeaves = 4096

// lineIndex finds the line of an instance taking an (S-tag, C-tag) pair. It
// is a segment tree over S-tags stored sparsely: each line is attached to
// the O(log 4096) tree nodes whose S-tag intervals exactly tile its S-tag
// range. The lines attached to one node share all S-tags of that node, so
// their C-tag ranges are disjoint and sorted by C-tag they can be binary
// searched. A lookup visits the 13 nodes on the path from the S-tag's leaf
// to the root.
type lineIndex struct {
	nodes map[uint16][]*Line
}

func buildLineIndex(lines []*Line) lineIndex {
	x := lineIndex{nodes: make(map[uint16][]*Line)}
	for _, l := range lines {
		lo, hi := int(l.STag.Min)+segLeaves, int(l.STag.Max)+segLeaves+1
		for lo < hi {
			if lo&1 == 1 {
				x.nodes[uint16(lo)] = append(x.nodes[uint16(lo)], l)
				lo++
			}
			if hi&1 == 1 {
				hi--
				x.nodes[uint16(hi)] = append(x.nodes[uint16(hi)], l)
			}
			lo >>= 1
			hi >>= 1
		}
	}
	for _, ls := range x.nodes {
		sort.Slice(ls, func(i, j int) bool { return ls[i].CTag.Min < ls[j].CTag.Min })
	}
	return x
}

func (x *lineIndex) lookup(stag, ctag uint16) *Line {
	if stag < MinVLANID || stag > MaxVLANID || ctag > MaxVLANID {
		return nil
	}
	c := ctag
	if c == 0 {
		// No C-tag: only a line taking any C-tag matches, and such a line
		// is the only one at its S-tags, so searching for C-tag 1 finds it.
		c = MinVLANID
	}
	for n := int(stag) + segLeaves; n >= 1; n >>= 1 {
		ls := x.nodes[uint16(n)]
		if len(ls) == 0 {
			continue
		}
		i := sort.Search(len(ls), func(i int) bool { return ls[i].CTag.Min > c }) - 1
		if i >= 0 && ls[i].CTag.Max >= c {
			if ctag == 0 && !ls[i].AnyCTag {
				return nil
			}
			return ls[i]
		}
	}
	return nil
}
