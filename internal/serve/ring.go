package serve

import "slices"

// ring keeps a session's latest stream frames for clients that come back:
// at most maxFrames frames and maxBytes bytes (the newest frame is kept even
// when it alone is larger). Seqs are consecutive, so a frame is found by
// arithmetic. Not safe for concurrent use: live.mu guards it.
type ring struct {
	maxFrames, maxBytes int

	buf   []ringFrame // circular once it has grown to maxFrames
	start int         // index of the oldest frame in buf
	n     int         // frames held
	bytes int
}

type ringFrame struct {
	seq  int64
	data []byte
}

// push adds the frame numbered seq (one more than the last pushed).
func (r *ring) push(seq int64, data []byte) {
	for r.n > 0 && (r.n >= r.maxFrames || r.bytes+len(data) > r.maxBytes) {
		r.bytes -= len(r.buf[r.start].data)
		r.buf[r.start] = ringFrame{}
		r.start = (r.start + 1) % len(r.buf)
		r.n--
	}
	f := ringFrame{seq: seq, data: data}
	if r.n == len(r.buf) {
		// Full below maxFrames (the loop above made room otherwise):
		// grow, oldest first.
		if r.start != 0 {
			r.buf, r.start = slices.Concat(r.buf[r.start:], r.buf[:r.start]), 0
		}
		r.buf = append(r.buf, f)
	} else {
		r.buf[(r.start+r.n)%len(r.buf)] = f
	}
	r.n++
	r.bytes += len(data)
}

// first is the seq of the oldest frame held, 0 when empty.
func (r *ring) first() int64 {
	if r.n == 0 {
		return 0
	}
	return r.buf[r.start].seq
}

// since returns the frames after seq, oldest first; all of them when seq
// is before the oldest.
func (r *ring) since(seq int64) [][]byte {
	first := r.first()
	if r.n == 0 {
		return nil
	}
	skip := max(0, int(seq-first+1))
	if skip >= r.n {
		return nil
	}
	out := make([][]byte, 0, r.n-skip)
	for i := skip; i < r.n; i++ {
		out = append(out, r.buf[(r.start+i)%len(r.buf)].data)
	}
	return out
}
