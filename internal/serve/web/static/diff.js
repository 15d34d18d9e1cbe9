// A line diff for Edit and Write cards: the lines of `before` and `after`
// as kept (' '), removed ('-') and added ('+'), by longest common
// subsequence after trimming the common head and tail. Inputs too large for
// the quadratic table are shown as all removed, then all added: correct,
// only less tidy.

const MAX_CELLS = 2_000_000;

export function lineDiff(before, after) {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out = [];
  for (let i = 0; i < head; i++) out.push({ op: ' ', text: a[i] });
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  if (am.length * bm.length > MAX_CELLS) {
    for (const t of am) out.push({ op: '-', text: t });
    for (const t of bm) out.push({ op: '+', text: t });
  } else {
    out.push(...lcs(am, bm));
  }
  for (let i = a.length - tail; i < a.length; i++) out.push({ op: ' ', text: a[i] });
  return out;
}

function splitLines(s) {
  if (s === undefined || s === null || s === '') return [];
  const lines = String(s).split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lcs(a, b) {
  const n = a.length, m = b.length;
  // len[i][j]: LCS length of a[i:] and b[j:], in one flat array.
  const w = m + 1;
  const len = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i * w + j] = a[i] === b[j]
        ? len[(i + 1) * w + j + 1] + 1
        : Math.max(len[(i + 1) * w + j], len[i * w + j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { out.push({ op: ' ', text: a[i] }); i++; j++; }
    else if (len[(i + 1) * w + j] >= len[i * w + j + 1]) out.push({ op: '-', text: a[i++] });
    else out.push({ op: '+', text: b[j++] });
  }
  while (i < n) out.push({ op: '-', text: a[i++] });
  while (j < m) out.push({ op: '+', text: b[j++] });
  return out;
}
