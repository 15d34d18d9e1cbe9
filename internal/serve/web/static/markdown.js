// A small Markdown renderer of our own for model output, which is untrusted:
// it builds DOM nodes with createElement and text nodes only, never HTML
// strings, so any markup in the text ("<script>", "<img onerror=…>") shows
// as the characters it is. Links keep only http(s) and mailto targets.
//
// It covers what models write: ATX headings, paragraphs, fenced code,
// block quotes, nested lists, tables, rules; code spans, strong, emphasis,
// strikethrough, links and bare URLs. A construct still open while the
// answer streams (a fence, "**") shows as plain text until it closes.

export function render(md) {
  const frag = document.createDocumentFragment();
  blocks(String(md).replace(/\r\n?/g, '\n').split('\n'), frag);
  return frag;
}

function el(tag, cls) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:\s+(.*)|$)/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function blocks(lines, parent) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    let m;
    if ((m = FENCE.exec(line))) {
      const fence = m[1];
      const body = [];
      i++;
      while (i < lines.length && !(lines[i].trim().startsWith(fence[0].repeat(fence.length)) &&
        lines[i].trim().replace(new RegExp('^\\' + fence[0] + '+'), '').trim() === '')) {
        body.push(lines[i++]);
      }
      i++; // the closing fence (or the end)
      const pre = el('pre');
      const code = el('code');
      if (m[2]) code.dataset.lang = m[2];
      code.textContent = body.join('\n');
      pre.appendChild(code);
      parent.appendChild(pre);
      continue;
    }
    if ((m = HEADING.exec(line))) {
      const h = el('h' + m[1].length);
      inline(m[2] || '', h);
      parent.appendChild(h);
      i++;
      continue;
    }
    if (RULE.test(line)) { parent.appendChild(el('hr')); i++; continue; }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) { inner.push(m[1]); i++; }
      const q = el('blockquote');
      blocks(inner, q);
      parent.appendChild(q);
      continue;
    }
    if ((m = ITEM.exec(line))) { i = list(lines, i, parent); continue; }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      i = table(lines, i, parent);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !startsBlock(lines, i)) para.push(lines[i++].trim());
    if (para.length === 0) para.push(lines[i++].trim()); // a line startsBlock rejected above
    const p = el('p');
    inline(para.join('\n'), p);
    parent.appendChild(p);
  }
}

function startsBlock(lines, i) {
  const l = lines[i];
  return FENCE.test(l) || HEADING.test(l) || RULE.test(l) || QUOTE.test(l) || ITEM.test(l) ||
    (l.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]) && lines[i + 1].includes('-'));
}

// list renders the list starting at lines[i]; an item is its first line
// plus the lines indented past its marker (nested lists), and the list
// ends at a line that is neither.
function list(lines, i, parent) {
  const first = ITEM.exec(lines[i]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const root = el(ordered ? 'ol' : 'ul');
  if (ordered && parseInt(first[2], 10) !== 1) root.start = parseInt(first[2], 10);
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const width = indent + m[2].length + 1;
    const body = [m[3] || ''];
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (!l.trim()) {
        // A blank line continues the item only when indented text follows.
        if (i + 1 < lines.length && indentOf(lines[i + 1]) >= width) { body.push(''); i++; continue; }
        break;
      }
      const sub = ITEM.exec(l);
      if (indentOf(l) >= Math.min(width, indent + 2) && (sub || indentOf(l) >= width)) {
        body.push(l.slice(Math.min(indentOf(l), width)));
        i++;
        continue;
      }
      if (sub || startsBlock(lines, i)) break;
      body.push(l.trim()); // a lazy continuation of the item's paragraph
      i++;
    }
    const li = el('li');
    if (body.length === 1 || !body.slice(1).some((l) => l.trim())) inline(body[0], li);
    else blocks(body, li);
    // An item without blank lines is tight: its paragraphs go without <p>.
    if (!body.some((l) => !l.trim())) {
      for (const p of [...li.children]) if (p.tagName === 'P') p.replaceWith(...p.childNodes);
    }
    const task = li.firstChild && li.firstChild.nodeType === 3 && /^\[([ xX])\]\s/.exec(li.firstChild.data);
    if (task) {
      li.firstChild.data = li.firstChild.data.slice(4);
      const box = el('input');
      box.type = 'checkbox';
      box.disabled = true;
      box.defaultChecked = task[1] !== ' ';
      li.prepend(box);
    }
    root.appendChild(li);
  }
  parent.appendChild(root);
  return i;
}

function indentOf(l) { return l.length - l.trimStart().length; }

function table(lines, i, parent) {
  const cells = (l) => {
    let s = l.trim();
    if (s.startsWith('|')) s = s.slice(1);
    if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
    return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
  };
  const head = cells(lines[i]);
  const align = cells(lines[i + 1]).map((c) =>
    c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : '');
  const t = el('table');
  const thead = el('thead');
  const tr = el('tr');
  head.forEach((c, k) => {
    const th = el('th');
    if (align[k]) th.style.textAlign = align[k];
    inline(c, th);
    tr.appendChild(th);
  });
  thead.appendChild(tr);
  t.appendChild(thead);
  const tbody = el('tbody');
  i += 2;
  while (i < lines.length && lines[i].trim() && lines[i].includes('|')) {
    const row = el('tr');
    cells(lines[i]).forEach((c, k) => {
      if (k >= head.length) return;
      const td = el('td');
      if (align[k]) td.style.textAlign = align[k];
      inline(c, td);
      row.appendChild(td);
    });
    tbody.appendChild(row);
    i++;
  }
  t.appendChild(tbody);
  const wrap = el('div', 'table-wrap');
  wrap.appendChild(t);
  parent.appendChild(wrap);
  return i;
}

const ESCAPABLE = /[!-/:-@[-`{-~]/;
const LINK = /^\[((?:[^\][]|\[[^\]]*\])*)\]\(\s*<?((?:[^\s()<>]|\([^\s()<>]*\))*)>?(?:\s+"[^"]*")?\s*\)/;
const AUTOLINK = /^<((?:https?:\/\/|mailto:)[^>\s]+)>/;
const BARE_URL = /^https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)\]}*_~]/;
const WORD = /[\p{L}\p{N}]/u;

// safeHref returns the URL if it is http(s) or mailto, else null: no
// javascript:, data: or relative targets from model text.
export function safeHref(url) {
  try {
    const u = new URL(url);
    return ['http:', 'https:', 'mailto:'].includes(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

function link(href, parent) {
  const a = el('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  parent.appendChild(a);
  return a;
}

// inline renders one paragraph's text with its spans into parent.
export function inline(text, parent) {
  let buf = '';
  const flush = () => {
    if (buf) parent.appendChild(document.createTextNode(buf));
    buf = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const rest = text.slice(i);
    if (c === '\\' && i + 1 < text.length) {
      if (text[i + 1] === '\n') { flush(); parent.appendChild(el('br')); i += 2; continue; }
      if (ESCAPABLE.test(text[i + 1])) { buf += text[i + 1]; i += 2; continue; }
    }
    if (c === '`') {
      const run = /^`+/.exec(rest)[0];
      const end = text.indexOf(run, i + run.length);
      if (end > 0 && text[end + run.length] !== '`') {
        flush();
        const code = el('code');
        let body = text.slice(i + run.length, end).replace(/\n/g, ' ');
        if (/^ .* $/.test(body)) body = body.slice(1, -1);
        code.textContent = body;
        parent.appendChild(code);
        i = end + run.length;
        continue;
      }
      buf += run;
      i += run.length;
      continue;
    }
    if (c === '*' || c === '_' || c === '~') {
      const span = emphasis(text, i);
      if (span) {
        flush();
        const e = el(span.tag);
        inline(span.body, e);
        parent.appendChild(e);
        i = span.end;
        continue;
      }
    }
    let m;
    if (c === '[' && (m = LINK.exec(rest))) {
      const href = safeHref(m[2]);
      flush();
      if (href) inline(m[1], link(href, parent));
      else inline(m[1], parent);
      i += m[0].length;
      continue;
    }
    if (c === '<' && (m = AUTOLINK.exec(rest))) {
      const href = safeHref(m[1]);
      if (href) {
        flush();
        link(href, parent).textContent = m[1];
        i += m[0].length;
        continue;
      }
    }
    if (c === 'h' && (i === 0 || !WORD.test(text[i - 1])) && (m = BARE_URL.exec(rest))) {
      const href = safeHref(m[0]);
      if (href) {
        flush();
        link(href, parent).textContent = m[0];
        i += m[0].length;
        continue;
      }
    }
    buf += c;
    i++;
  }
  flush();
}

// emphasis finds the span opened by the delimiter run at text[i]: "**"/"__"
// strong, "*"/"_" emphasis, "~~" strikethrough. Underscores never open or
// close inside a word (snake_case), and a span never starts or ends with a
// space.
function emphasis(text, i) {
  const c = text[i];
  let n = 1;
  while (text[i + n] === c) n++;
  if (c === '~' && n !== 2) return null;
  if (n > 2) n = 2;
  const delim = c.repeat(n);
  const open = i + n;
  if (open >= text.length || /\s/.test(text[open])) return null;
  if (c === '_' && i > 0 && WORD.test(text[i - 1])) return null;
  let j = open;
  while ((j = text.indexOf(delim, j + 1)) > 0) {
    if (/\s/.test(text[j - 1])) continue;
    if (c === '_' && j + n < text.length && WORD.test(text[j + n])) continue;
    if (n === 1 && (text[j + 1] === c || text[j - 1] === c)) { j++; continue; } // part of a longer run
    return { tag: c === '~' ? 'del' : n === 2 ? 'strong' : 'em', body: text.slice(open, j), end: j + n };
  }
  return null;
}
