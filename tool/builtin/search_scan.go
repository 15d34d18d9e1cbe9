package builtin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The scanner searches one file as a stream, never holding it whole: it is
// ripgrep's line buffer, so that what counts as binary (and so which files
// and lines are reported) is the same. The buffer starts at 64 KiB and is
// refilled from the file as its lines are searched; it grows (threefold, as
// ripgrep's) only to hold a line longer than it, up to scanBufMax. A line
// longer than that is searched in pieces and never held (longLine).
const (
	scanBufInit = 64 << 10
	scanBufMax  = 2 << 20
)

// binaryMode is what a NUL byte does, as in ripgrep: a file found by the
// walk is binary and its search stops before the buffer holding the NUL
// (matches before it stand, but count mode drops the file); a file named as
// the path is searched on with the NUL read as a line end.
type binaryMode uint8

const (
	binaryQuit binaryMode = iota
	binaryConvert
)

// scanOpts is what a scan does with what it finds.
type scanOpts struct {
	mode          string // modeContent, modeFiles or modeCount
	before, after int
	binary        binaryMode
	// keepLines and keepBytes bound the lines kept for content mode, per
	// file: what the output can show at most. Past them lines are counted,
	// not kept.
	keepLines, keepBytes int
}

// scanResult is what a scan found in one file.
type scanResult struct {
	count int // matching lines
	// lines are the kept output lines (content mode); nout counts every
	// output line, kept or not, with the "--" between groups of context.
	lines []grepLine
	nout  int
	kept  int // bytes of the kept lines
	// binaryAt is the offset of the first NUL byte seen, -1 if none.
	binaryAt int64
	// note, if set, is a last output line (content mode): a named binary
	// file's matches past its first NUL.
	note string
	// dropped: lines were output but not kept (keepLines, keepBytes).
	dropped bool
	// partial counts lines too long to hold that were searched in their
	// first scanBufMax bytes only (a pattern that is not a literal).
	partial int
}

// scanner is one worker's searcher: its buffer is reused from file to file,
// its matcher is its own.
type scanner struct {
	m    *matcher
	opts scanOpts
	// ctx ends the scan: it is looked at before every read.
	ctx context.Context
	buf []byte
	// initSize and maxSize are the buffer's bounds: scanBufInit and
	// scanBufMax, smaller in tests, to make many refills of small files.
	initSize, maxSize int

	// Per file: the line buffer (ripgrep's LineBuffer).
	r        io.Reader
	pos      int   // start of what is not consumed
	lastTerm int   // end of the complete lines
	end      int   // end of the data
	abs      int64 // offset in the file of buf[0]
	eof      bool
	res      *scanResult
	done     bool
	stopped  bool
	readErr  error
	maxLit   int // the longest literal, for the overlap of a long line's pieces
	nulFound bool
	readNew  bool  // the last refill read something
	size     int64 // the file's size at its open, -1 if unknown

	// Per file: the searcher (ripgrep's Core).
	searched    int // buffer offset up to which lines are searched
	lastVisited int // buffer offset after the last line reported (match or context)
	afterLeft   int // context lines still to show after the last match
	countedPos  int // line numbers: buf offset counted up to ...
	countedLine int // ... and the number of the line starting there
	lastNo      int // number of the last line output, 0 for none
	binaryLate  bool
}

func newScanner(ctx context.Context, m *matcher, opts scanOpts) *scanner {
	s := &scanner{m: m.clone(), opts: opts, ctx: ctx, initSize: scanBufInit, maxSize: scanBufMax}
	for _, l := range m.lits {
		s.maxLit = max(s.maxLit, len(l.s))
	}
	return s
}

// scan searches r. It returns false with no error when the file has no
// match to report; an error is a read error, or errStopped. size, if not
// negative, is the file's size when it was opened: once that much is read,
// the read that would return nothing is spared (a file a search reads in
// one go is then one read, not two).
func (s *scanner) scan(r io.Reader, res *scanResult, size int64) (bool, error) {
	if s.buf == nil {
		s.buf = make([]byte, s.initSize)
	}
	*res = scanResult{binaryAt: -1}
	s.r, s.res, s.size = r, res, size
	s.pos, s.lastTerm, s.end, s.abs = 0, 0, 0, 0
	s.eof, s.done, s.stopped, s.readErr, s.nulFound = false, false, false, nil, false
	s.searched, s.lastVisited, s.afterLeft = 0, 0, 0
	s.countedPos, s.countedLine, s.lastNo, s.binaryLate = 0, 1, 0, false
	defer func() { s.r, s.res = nil, nil }()
	for !s.done && s.fill() {
		s.search()
	}
	// Shrink a buffer a long line grew, for the next file.
	if len(s.buf) > s.initSize {
		s.buf = make([]byte, s.initSize)
	}
	switch {
	case s.stopped:
		return false, errStopped
	case s.readErr != nil:
		return false, s.readErr
	case res.count == 0:
		return false, nil
	case s.opts.binary == binaryQuit && res.binaryAt >= 0 && s.opts.mode == modeCount:
		// ripgrep drops the count of a binary file.
		return false, nil
	}
	return true, nil
}

// errStopped: the search was cancelled.
var errStopped = fmt.Errorf("search stopped")

// maxContext is ripgrep's: the larger of the two context lengths.
func (s *scanner) maxContext() int { return max(s.opts.before, s.opts.after) }

// fill consumes what was searched (but the lines context may still need)
// and reads on; false means there is nothing more to search.
func (s *scanner) fill() bool {
	if s.ctx.Err() != nil {
		s.stopped = true
		return false
	}
	already := s.res.binaryAt >= 0
	oldLen := s.lastTerm - s.pos
	consumed := oldLen
	if mc := s.maxContext(); mc > 0 && s.opts.mode == modeContent {
		consumed = max(preceding(s.buf[s.pos:s.lastTerm], mc), s.lastVisited)
	}
	s.countLines(s.pos + consumed)
	s.pos += consumed
	s.searched = oldLen - consumed
	s.lastVisited = 0
	didRead := s.refill()
	if s.stopped || s.readErr != nil {
		return false
	}
	if !already && s.res.binaryAt >= 0 && s.opts.binary == binaryQuit {
		return false
	}
	if !didRead {
		return false
	}
	if consumed == 0 && !s.readNew {
		return false // only context is left
	}
	return true
}

// preceding returns the start of the line count lines before the last line
// of b (ripgrep's lines::preceding); b ends with a line end.
func preceding(b []byte, count int) int {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for {
		i := bytes.LastIndexByte(b[:end], '\n')
		if i < 0 {
			return 0
		}
		if count == 0 {
			return i + 1
		}
		count--
		end = i
	}
}

// refill moves what is not consumed to the start of the buffer and reads
// until the buffer holds a line end (ripgrep's LineBuffer::fill).
func (s *scanner) refill() bool {
	s.readNew = false
	if s.opts.binary == binaryQuit && s.res.binaryAt >= 0 || s.eof {
		return s.pos < s.lastTerm
	}
	// Line numbers are counted from the buffer's start.
	s.countedPos -= s.pos
	n := copy(s.buf, s.buf[s.pos:s.end])
	s.abs += int64(s.pos)
	s.pos, s.lastTerm, s.end = 0, n, n
	for {
		if s.end == len(s.buf) && !s.grow() {
			if !s.longLine() {
				return s.pos < s.lastTerm
			}
			if s.lastTerm > 0 {
				return true
			}
			continue
		}
		k, ok := s.read()
		if !ok {
			return false
		}
		if k == 0 {
			s.eof = true
			s.lastTerm = s.end
			return s.pos < s.lastTerm
		}
		old := s.end
		s.end += k
		s.readNew = true
		if s.nulCheck(old) {
			return s.pos < s.end
		}
		if i := bytes.LastIndexByte(s.buf[old:s.end], '\n'); i >= 0 {
			s.lastTerm = old + i + 1
			return true
		}
	}
}

// nulCheck looks for NUL in buf[from:end], new data. In quit mode the data
// ends before it (true is returned); in convert mode it becomes a line end.
func (s *scanner) nulCheck(from int) bool {
	i := bytes.IndexByte(s.buf[from:s.end], 0)
	if i < 0 {
		return false
	}
	if s.res.binaryAt < 0 {
		s.res.binaryAt = s.abs + int64(from+i)
	}
	if s.opts.binary == binaryQuit {
		s.end = from + i
		s.lastTerm = s.end
		return true
	}
	for j := from + i; j < s.end; j++ {
		if s.buf[j] == 0 {
			s.buf[j] = '\n'
		}
	}
	return false
}

// grow enlarges the full buffer threefold, as ripgrep's, up to scanBufMax;
// false when it is already that large. Context lines kept at its start are
// dropped first when that makes room.
func (s *scanner) grow() bool {
	if len(s.buf) >= s.maxSize {
		// The buffer is full and what was read since the roll holds no
		// line end: the complete lines are the context kept at its start.
		if kept := bytes.LastIndexByte(s.buf[:s.end], '\n') + 1; kept > 0 {
			// They (searched already) give way to the line being read.
			s.countLines(kept)
			s.countedPos -= kept
			s.abs += int64(kept)
			n := copy(s.buf, s.buf[kept:s.end])
			s.searched, s.lastVisited = 0, 0
			s.pos, s.lastTerm, s.end = 0, 0, n
			return true
		}
		return false
	}
	nb := make([]byte, min(len(s.buf)*3, s.maxSize))
	copy(nb, s.buf[:s.end])
	s.buf = nb
	return true
}

// countLines advances the line count to buffer offset to (content mode
// only: the other modes need no line numbers).
func (s *scanner) countLines(to int) {
	if s.opts.mode != modeContent || to <= s.countedPos {
		return
	}
	s.countedLine += bytes.Count(s.buf[s.countedPos:to], []byte{'\n'})
	s.countedPos = to
}

// lineNo returns the number of the line starting at buffer offset at.
func (s *scanner) lineNo(at int) int {
	s.countLines(at)
	return s.countedLine
}

// search searches the complete lines not searched yet.
func (s *scanner) search() {
	region := s.buf[:s.lastTerm]
	s.m.reset()
	from := s.searched
	for from < len(region) {
		ls, le, ms, ok := s.m.find(region, from)
		if !ok {
			break
		}
		s.match(region, ls, le, ms, true)
		if s.done {
			return
		}
		from = le + 1
	}
	s.afterContext(region, len(region))
	s.searched = len(region)
}

// match reports the matching line [ls, le) of region, the match at ms.
func (s *scanner) match(region []byte, ls, le, ms int, inBuffer bool) {
	if s.opts.binary == binaryConvert && s.res.binaryAt >= 0 && s.opts.mode == modeContent {
		// ripgrep shows no lines of a named file once it has seen it is
		// binary; it says that it matches, and stops.
		s.res.count++
		s.res.note = fmt.Sprintf("binary file matches (found \"\\0\" byte around offset %d)", s.res.binaryAt)
		s.res.nout++
		s.done = true
		return
	}
	s.res.count++
	switch s.opts.mode {
	case modeFiles:
		s.done = true
		return
	case modeCount:
		return
	}
	if !inBuffer {
		return
	}
	s.afterContext(region, ls)
	if b := s.opts.before; b > 0 {
		start := ls
		for i := 0; i < b && start > s.lastVisited; i++ {
			start = bytes.LastIndexByte(region[:start-1], '\n') + 1
		}
		start = max(start, s.lastVisited)
		for start < ls {
			end := lineEnd(region, start)
			s.emit(s.lineNo(start), region[start:end], -1, false)
			start = end + 1
		}
	}
	s.emit(s.lineNo(ls), region[ls:le], ms-ls, true)
	s.lastVisited = min(le+1, len(region))
	s.afterLeft = s.opts.after
}

// afterContext shows the context lines owed to the last match that start
// before upto.
func (s *scanner) afterContext(region []byte, upto int) {
	for s.afterLeft > 0 && s.lastVisited < upto && s.opts.mode == modeContent {
		end := lineEnd(region, s.lastVisited)
		s.emit(s.lineNo(s.lastVisited), region[s.lastVisited:end], -1, false)
		s.lastVisited = min(end+1, len(region))
		s.afterLeft--
	}
}

// emit adds an output line: its number, text (at is the match's offset in
// it, -1 for a context line).
func (s *scanner) emit(n int, text []byte, at int, match bool) {
	r := s.res
	if s.lastNo > 0 && n != s.lastNo+1 && s.maxContext() > 0 {
		r.nout++ // "--"
	}
	s.lastNo = n
	r.nout++
	if len(r.lines) >= s.opts.keepLines || r.kept >= s.opts.keepBytes {
		r.dropped = true
		return
	}
	t := cutAt(text, at, grepLineMax)
	r.kept += len(t) + 16
	r.lines = append(r.lines, grepLine{n: n, text: t, match: match})
}

// emitText is emit for a line already rendered.
func (s *scanner) emitText(n int, t string, match bool) {
	r := s.res
	if s.lastNo > 0 && n != s.lastNo+1 && s.maxContext() > 0 {
		r.nout++
	}
	s.lastNo = n
	r.nout++
	if len(r.lines) >= s.opts.keepLines || r.kept >= s.opts.keepBytes {
		r.dropped = true
		return
	}
	r.kept += len(t) + 16
	r.lines = append(r.lines, grepLine{n: n, text: t, match: match})
}

// cutAt renders a line of output: without a final "\r", and if longer than
// max bytes, about max bytes around at (the match; -1: from the start), with
// what was left out said.
func cutAt(line []byte, at, max int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return cutSpan(line, 0, len(line), at, max)
}

// cutSpan renders the part of a line of total bytes held in part, which
// starts at offset partStart of the line: about max bytes around at (an
// offset in part; -1: from part's start).
func cutSpan(part []byte, partStart, total, at, width int) string {
	if partStart == 0 && len(part) == total && total <= width {
		return string(part)
	}
	start := 0
	if at > width/4 {
		start = max(min(at-width/4, len(part)-width), 0)
	}
	for start > 0 && start < len(part) && !utf8.RuneStart(part[start]) {
		start--
	}
	end := min(start+width, len(part))
	for end < len(part) && end > start && !utf8.RuneStart(part[end]) {
		end--
	}
	var b strings.Builder
	if before := partStart + start; before > 0 {
		fmt.Fprintf(&b, "[%d characters omitted] …", before)
	}
	b.Write(part[start:end])
	if after := total - (partStart + end); after > 0 {
		fmt.Fprintf(&b, "… [%d characters omitted]", after)
	}
	return b.String()
}

// longLine searches a line longer than the buffer, which holds its first
// scanBufMax bytes, without holding it: piece by piece, each piece keeping
// the end of the one before so that a literal across two is found. A
// pattern that is not a literal is only tried on the first piece (a regular
// expression's match has no bounded length); res.partial counts those lines.
// As in ripgrep, a line is only reported once it is complete, so a NUL byte
// within it (a binary file) means it never is. It returns false when the
// search of the file ends within the line (end of file, binary, stop, read
// error); otherwise what followed the line is in the buffer.
func (s *scanner) longLine() bool {
	lineStart := s.abs
	no := s.lineNo(0)
	var matched bool
	var snip []byte // about grepLineMax bytes around the match, or the line's head
	var snipAt int64
	var at int
	look := func(piece []byte, pieceStart int64) {
		if matched {
			return
		}
		s.m.reset()
		ms, ok := 0, false
		if s.m.exact {
			_, _, ms, ok = s.m.find(piece, 0)
		} else if loc := s.m.re.FindIndex(piece); loc != nil && loc[1] < len(piece) {
			// A match that reaches the piece's end may not be one in the
			// whole line ($, \b, a greedy repetition see an end that is
			// not there); one that ends before it saw real bytes only.
			ms, ok = loc[0], true
		}
		if ok {
			matched = true
			from := max(ms-grepLineMax/2, 0)
			snip = append(snip[:0], piece[from:min(ms+grepLineMax, len(piece))]...)
			snipAt, at = pieceStart+int64(from), ms-from
		}
	}
	look(s.buf[:s.end], lineStart)
	if !matched {
		snip = append(snip[:0], s.buf[:min(grepLineMax+utf8.UTFMax, s.end)]...)
		snipAt = lineStart
	}
	if !s.m.exact {
		s.res.partial++
	}
	pieceStart := lineStart
	for {
		keep := 0
		if s.m.exact && !matched {
			keep = min(max(s.maxLit-1, 0), s.end)
		}
		pieceStart += int64(s.end - keep)
		copy(s.buf, s.buf[s.end-keep:s.end])
		s.end = keep
		k, ok := s.read()
		if !ok {
			return false
		}
		lineLen := int(pieceStart-lineStart) + s.end + k
		if k == 0 {
			s.finishLong(no, matched, snip, int(snipAt-lineStart), lineLen, at)
			s.abs = pieceStart + int64(s.end)
			s.pos, s.lastTerm, s.end, s.eof = 0, 0, 0, true
			return false
		}
		old := s.end
		s.end += k
		s.abs = pieceStart
		if s.nulCheck(old) {
			// Binary: the search stops before this data, and the line is
			// never complete.
			s.pos, s.lastTerm, s.end = 0, 0, 0
			return false
		}
		nl := bytes.IndexByte(s.buf[old:s.end], '\n')
		if nl < 0 {
			if s.m.exact {
				look(s.buf[:s.end], pieceStart)
			}
			continue
		}
		nl += old
		if s.m.exact {
			look(s.buf[:nl], pieceStart)
		}
		s.finishLong(no, matched, snip, int(snipAt-lineStart), int(pieceStart-lineStart)+nl, at)
		// What follows the line becomes the buffer.
		s.abs = pieceStart + int64(nl+1)
		n := copy(s.buf, s.buf[nl+1:s.end])
		s.pos, s.end = 0, n
		s.lastTerm = bytes.LastIndexByte(s.buf[:n], '\n') + 1
		s.searched, s.lastVisited = 0, 0
		s.countedPos, s.countedLine = 0, no+1
		s.readNew = true
		return true
	}
}

// finishLong reports a long line once its length is known: a match, or a
// context line owed to the match before it.
func (s *scanner) finishLong(no int, matched bool, snip []byte, snipStart, total, at int) {
	if matched {
		s.match(nil, 0, 0, 0, false)
		if s.opts.mode != modeContent || s.done {
			return
		}
		s.emitText(no, cutSpan(snip, snipStart, total, at, grepLineMax), true)
		s.afterLeft = s.opts.after
		return
	}
	if s.afterLeft > 0 && s.opts.mode == modeContent {
		s.emitText(no, cutSpan(snip, snipStart, total, -1, grepLineMax), false)
		s.afterLeft--
	}
}

// multilineMax is the largest file searched in multiline mode, which needs
// the whole file at once (a match may span any number of lines). Larger
// files are not searched, and Grep says so.
const multilineMax = 8 << 20

// scanWhole searches data, a whole file, in multiline mode: every line a
// match touches is a matching line, as ripgrep reports them. As in ripgrep's
// multiline mode, a file is binary when its first 64 KiB hold a NUL byte.
func (s *scanner) scanWhole(data []byte, res *scanResult) bool {
	*res = scanResult{binaryAt: -1}
	s.res = res
	s.lastNo = 0
	defer func() { s.res = nil }()
	if i := bytes.IndexByte(data[:min(len(data), scanBufInit)], 0); i >= 0 {
		res.binaryAt = int64(i)
		return false
	}
	re := s.m.re
	if s.opts.mode == modeFiles {
		if re.Match(data) {
			res.count = 1
			return true
		}
		return false
	}
	at := lineCursor{data: data, no: 1}  // line numbers of match offsets
	out := lineCursor{data: data, no: 1} // the lines being output
	lastMatched := 0                     // the last line counted as matching
	owed := 0                            // after-context owed up to this line
	emitUpTo := func(to int) {           // context lines before line to
		for s.lastNo+1 < to && s.lastNo+1 <= owed {
			out.seek(s.lastNo + 1)
			if out.start >= len(data) {
				return
			}
			s.emit(out.no, data[out.start:out.end()], -1, false)
		}
	}
	for pos := 0; pos <= len(data); {
		if s.ctx.Err() != nil {
			s.stopped = true
			return false
		}
		loc := re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		ms, me := pos+loc[0], pos+loc[1]
		if ms >= len(data) {
			break // an empty match after the final newline is on no line
		}
		last := ms
		if me > ms {
			last = me - 1 // a final "\n" belongs to the line it ends
		}
		first := at.lineOf(ms)
		lastL := at.lineOf(last)
		for l := max(first, lastMatched+1); l <= lastL; l++ {
			res.count++
			if s.opts.mode != modeContent {
				continue
			}
			emitUpTo(l)
			for from := max(l-s.opts.before, s.lastNo+1); from < l; from++ {
				out.seek(from)
				s.emit(from, data[out.start:out.end()], -1, false)
			}
			out.seek(l)
			hit := -1
			if l == first {
				hit = ms - out.start
			}
			s.emit(l, data[out.start:out.end()], hit, true)
			owed = l + s.opts.after
		}
		lastMatched = max(lastMatched, lastL)
		pos = me
		if me == ms {
			_, w := utf8.DecodeRune(data[me:])
			pos += max(w, 1)
		}
	}
	if s.opts.mode == modeContent {
		emitUpTo(owed + 1)
	}
	return res.count > 0
}

// lineCursor walks the lines of data forward.
type lineCursor struct {
	data  []byte
	no    int // the line at start
	start int
}

// lineOf returns the number of the line holding offset off, which must not
// be before the cursor's line.
func (c *lineCursor) lineOf(off int) int {
	for {
		e := c.end()
		if off <= e || e >= len(c.data) {
			return c.no
		}
		c.start, c.no = e+1, c.no+1
	}
}

// seek moves to line no, which must not be before the cursor's.
func (c *lineCursor) seek(no int) {
	for c.no < no && c.start < len(c.data) {
		c.start, c.no = c.end()+1, c.no+1
	}
}

// end returns the offset of the newline ending the cursor's line, or
// len(data).
func (c *lineCursor) end() int { return lineEnd(c.data, min(c.start, len(c.data))) }

// read reads more after s.end, unless the search was cancelled (stopped)
// or the file's size at its open is reached (no read that would return
// nothing). ok is false when the file's search ends here: cancelled, or a
// read error (readErr).
func (s *scanner) read() (k int, ok bool) {
	if s.ctx.Err() != nil {
		s.stopped = true
		return 0, false
	}
	var err error
	if s.size < 0 || s.abs+int64(s.end) < s.size {
		k, err = s.r.Read(s.buf[s.end:])
	}
	if err != nil && err != io.EOF {
		s.readErr = err
		return 0, false
	}
	return k, true
}
