// The web client of `nova serve`: one WebSocket to /ws, a timeline built
// from the session's events, and the controls that answer them.
//
// The protocol is the server's (internal/serve/PROTOCOL.md). Every frame of
// a session's stream carries a seq. The client remembers the last seq it
// rendered; after a drop it reconnects and sends resume with after_seq (and
// the session's epoch), and drops any frame at or below that mark, so a
// replay neither repeats nor skips entries; a replay rebuilt from the
// transcript (replay "transcript", frames marked replayed without seq)
// replaces what the page showed. Model output reaches the page only as text
// nodes (see markdown.js): nothing here assigns innerHTML.

import { render } from './markdown.js';
import { lineDiff } from './diff.js';

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

// --- the token: from the fragment once, then kept for this tab only.

function takeToken() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem('nova.token', decodeURIComponent(m[1]));
    // Out of the address bar (and so out of history, bookmarks, screenshots).
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem('nova.token') || '';
}

// --- state

const S = {
  token: takeToken(),
  ws: null,
  connected: false,
  attempts: 0,
  version: '',
  session: sessionStorage.getItem('nova.session') || null,
  epoch: null, // the session's epoch on the server: a new one means new seqs
  lastSeq: 0,
  lastPrompt: '', // put back in the box if the server refuses it
  controller: false,
  busy: false,
  pendingNew: false, // a prompt went out without a session: adopt the one it starts
  model: '',
  mode: 'default',
};

// Counters for tests and for the curious (window.nova in the console).
const stats = { frames: 0, duplicates: 0, gaps: 0, connects: 0 };
window.nova = { S, stats };

// T is the timeline of the attached session; reset when another is shown.
let T;

function resetTimeline() {
  T = {
    main: lane($('timeline')),
    cards: new Map(), // key(agent, call id) -> card
    tasks: new Map(), // a Task call's id -> its card, where its subagent's events go
    asks: new Map(), // key(agent, request id) -> dialog
    resolved: new Set(), // keys whose dialog is settled
    searches: new Map(),
  };
  $('timeline').replaceChildren();
  $('dialogs').replaceChildren();
  $('todos').replaceChildren();
  $('todos').hidden = true;
  setUsage(null);
  S.lastSeq = 0;
}

// A lane is where a run's entries go: the main timeline, or a subagent's
// part of its Task card. Text and thinking deltas extend the lane's current
// block until another entry comes.
function lane(root) {
  return { root, text: null, thinking: null };
}

// key names a call or request: ids are unique only within one agent's
// conversation, so a subagent's carry its agent_id.
function key(ev) {
  return (ev.agent_id || '') + '/' + ev.id;
}

// --- connection

function connect() {
  if (!S.token) {
    setConn('no token', 'bad');
    notice('No token: open the address `nova serve` printed (it ends in #token=…).');
    return;
  }
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host +
    location.pathname.replace(/[^/]*$/, '') + 'ws';
  let ws;
  try {
    ws = new WebSocket(url, ['nova.v1', 'nova.token.' + S.token]);
  } catch (e) {
    notice('Cannot connect: ' + e.message);
    return;
  }
  S.ws = ws;
  setConn('connecting', '');
  ws.onopen = () => {
    S.connected = true;
    S.attempts = 0;
    stats.connects++;
    setConn('connected', 'ok');
    notice('');
    if (S.session) resume();
    updateControls();
  };
  ws.onmessage = (m) => {
    let f;
    try {
      f = JSON.parse(m.data);
    } catch {
      return;
    }
    stats.frames++;
    try {
      onFrame(f);
    } catch (e) {
      console.error('frame', f, e);
    }
  };
  ws.onclose = (e) => {
    if (S.ws !== ws) return;
    S.ws = null;
    S.connected = false;
    updateControls();
    // A refused upgrade (wrong token) is indistinguishable here from a
    // server that is gone; both get the same patient retries.
    const wait = Math.min(5000, 250 * 2 ** S.attempts++);
    setConn('reconnecting', 'bad');
    if (e.code === 1008 || e.code === 1009) notice(`The server closed the connection (${e.code} ${e.reason}); reconnecting…`);
    else if (S.attempts >= 4) notice('Cannot reach nova serve: is it running, and is this the address it printed (with its token)? Retrying…');
    setTimeout(connect, wait);
  };
}

// send writes one client frame. Its ref (echoed by an error it causes)
// names the frame's type and, for answers, the request it answers.
function send(f) {
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN) {
    notice('Not connected: try again in a moment.');
    return false;
  }
  f.ref = f.type + (f.id ? ':' + f.id : '');
  S.ws.send(JSON.stringify(f));
  return true;
}

function resume() {
  const f = { type: 'resume', session_id: S.session, after_seq: S.lastSeq };
  if (S.epoch !== null) f.epoch = S.epoch;
  send(f);
}

// --- frames

function onFrame(f) {
  switch (f.type) {
    case 'hello':
      S.version = f.version || '';
      $('bar').title = [f.version && 'nova ' + f.version, f.workspace].filter(Boolean).join(' · ');
      return;
    case 'session':
    case 'attached':
      return onAttached(f);
    case 'control':
      if (!f.session_id || f.session_id === S.session) {
        S.controller = !!(f.control ?? f.controller);
        updateControls();
      }
      return;
    case 'sessions':
      return renderSessions(f.sessions || []);
    case 'error':
      return onError(f);
  }
  if (f.session_id) {
    if (!S.session && S.pendingNew) adopt(f.session_id);
    if (f.session_id !== S.session) return; // not the session on screen
  }
  if (typeof f.seq === 'number') {
    // A request sent again after a replay keeps its seq: its dialog is
    // found by id instead.
    const ask = f.type === 'permission_request' || f.type === 'question';
    if (f.seq <= S.lastSeq && !ask) {
      stats.duplicates++;
      return;
    }
    if (f.seq > S.lastSeq) {
      if (S.lastSeq && f.seq !== S.lastSeq + 1) stats.gaps++;
      S.lastSeq = f.seq;
    }
  }
  onEvent(f);
}

function adopt(id) {
  S.session = id;
  S.pendingNew = false;
  sessionStorage.setItem('nova.session', id);
}

// onAttached takes the server's word on the session this client is
// attached to: which, whether it controls it, and how the replay that
// follows is made.
function onAttached(f) {
  if (S.session !== f.session_id) {
    if (S.session && !S.pendingNew) resetTimeline();
    adopt(f.session_id);
  }
  if (f.replay === 'transcript') {
    // The conversation follows rebuilt from the transcript, without
    // seqs: it replaces whatever is shown.
    resetTimeline();
  } else if (f.replay !== 'ring' && typeof f.last_seq === 'number' && f.last_seq < S.lastSeq) {
    // Seqs we hold mean nothing to the server any more.
    resetTimeline();
  }
  if (f.epoch !== undefined) S.epoch = f.epoch;
  S.pendingNew = false;
  S.controller = !!(f.control ?? f.controller);
  if (f.model) S.model = f.model;
  if (f.mode) S.mode = f.mode;
  const running = f.running ?? f.busy;
  if (typeof running === 'boolean') S.busy = running;
  updateControls();
}

function onError(f) {
  const ref = f.ref || f.request || '';
  const what = ref.split(':')[0];
  notice('Server: ' + (f.error || f.message || 'error') + (f.code ? ` (${f.code})` : ''));
  if (what === 'permission' || what === 'answer') {
    // Refused: show the dialog again if the request is still open.
    const id = ref.slice(what.length + 1);
    for (const [k, d] of T.asks) if ((!id || d.dataset.id === id) && !T.resolved.has(k)) d.hidden = false;
  }
  if (what === 'set_mode') $('mode').value = S.mode;
  if (what === 'prompt') {
    S.pendingNew = false;
    if (f.code !== 'busy') S.busy = false;
    if (!$('prompt').value.trim()) $('prompt').value = S.lastPrompt;
  }
  if (what === 'resume' && f.code === 'unknown_session') newSession();
  updateControls();
}

// --- events

function onEvent(ev) {
  const child = !!ev.parent_tool_use_id;
  const ln = child ? childLane(ev.parent_tool_use_id) : T.main;
  if (!child && !ev.replayed && !S.busy && !['loop_complete', 'result', 'usage', 'mode', 'resolved'].includes(ev.type)) {
    S.busy = true; // a run started, maybe by another client
    updateControls();
  }
  switch (ev.type) {
    case 'stream_text':
      appendText(ln, ev.text);
      break;
    case 'thinking_text':
      appendThinking(ln, ev.text);
      break;
    case 'tool_use':
      toolUse(ln, ev, child);
      break;
    case 'tool_done':
      toolDone(ev);
      break;
    case 'tool_result':
      toolResult(ln, ev);
      break;
    case 'permission_request':
      askPermission(ev);
      break;
    case 'question':
      askQuestion(ev);
      break;
    case 'todo':
      if (child) add(ln, todoList(ev.todos, 'todos-inline'));
      else showTodos(ev.todos);
      break;
    case 'usage':
      if (child) childStats(ev.parent_tool_use_id, { cost: ev.cost_usd, turn: ev.turn });
      else setUsage(ev);
      break;
    case 'mailbox':
      for (const it of ev.items || []) line(ln, 'mailbox', `✉ ${it.kind} ${it.from}: ${it.text}`);
      break;
    case 'warning':
      line(ln, 'warning', '⚠ ' + ev.message);
      break;
    case 'retry':
      line(ln, 'retry', '↻ ' + retryNotice(ev));
      break;
    case 'compact':
      line(ln, 'info', `context compacted: ${fmtTokens(ev.tokens_before)} → ${fmtTokens(ev.tokens_after)} tokens (${ev.reason})`);
      break;
    case 'web_search':
      webSearch(ln, ev);
      break;
    case 'citation':
      citation(ln, ev);
      break;
    case 'turn_complete':
      break;
    case 'loop_complete':
      if (child) childDone(ev);
      else loopComplete(ev);
      break;
    case 'result':
      // The run is over: whatever it asked is void.
      for (const k of [...T.asks.keys()]) settle(k);
      if (!child) resultLine(ev);
      break;
    case 'user_prompt':
      if (!child) userEntry(ev.text || '');
      break;
    case 'resolved':
      resolved(ev);
      break;
    case 'mode':
      S.mode = ev.mode || S.mode;
      updateControls();
      break;
    default:
      break;
  }
  scrollDown();
}

function add(ln, node) {
  ln.text = null;
  ln.thinking = null;
  ln.root.appendChild(node);
  return node;
}

function line(ln, cls, text) {
  return add(ln, el('div', 'line ' + cls, text));
}

function userEntry(text) {
  add(T.main, el('div', 'user', text));
}

// Markdown is rendered again as the text grows, at most every few frames;
// dirty lanes wait in a set.
const dirty = new Set();
let renderTimer = 0;

function appendText(ln, text) {
  if (!ln.text) {
    ln.thinking = null;
    const block = el('div', 'answer markdown');
    ln.root.appendChild(block);
    ln.text = { el: block, md: '' };
  }
  ln.text.md += text;
  dirty.add(ln.text);
  if (!renderTimer) renderTimer = setTimeout(flushText, 30);
}

function flushText() {
  renderTimer = 0;
  for (const t of dirty) t.el.replaceChildren(render(t.md));
  dirty.clear();
  scrollDown();
}

function appendThinking(ln, text) {
  if (!ln.thinking) {
    ln.text = null;
    const d = el('details', 'thinking');
    d.appendChild(el('summary', null, 'Thinking'));
    const body = el('div', 'thinking-body');
    d.appendChild(body);
    ln.root.appendChild(d);
    ln.thinking = body;
  }
  ln.thinking.textContent += text;
}

// --- tool cards

function parseInput(input) {
  if (input && typeof input === 'object') return input;
  try {
    return JSON.parse(input);
  } catch {
    return {};
  }
}

function summary(name, inp) {
  const s = (v) => (typeof v === 'string' ? v : '');
  switch (name) {
    case 'Bash': return s(inp.description) || s(inp.command);
    case 'Read': case 'Write': case 'Edit': return s(inp.file_path);
    case 'Glob': case 'Grep': return s(inp.pattern) + (inp.path ? ' in ' + inp.path : '');
    case 'LS': return s(inp.path);
    case 'WebFetch': return s(inp.url);
    case 'Task': return s(inp.description) + (inp.subagent_type ? ` (${inp.subagent_type})` : '');
    case 'TodoWrite': return Array.isArray(inp.todos) ? `${inp.todos.length} tasks` : '';
    case 'AskUserQuestion': return s(inp.question);
    case 'BashOutput': return s(inp.bash_id);
    case 'KillShell': return s(inp.shell_id);
    case 'ExitPlanMode': return 'a plan to approve';
  }
  const j = JSON.stringify(inp);
  return j && j !== '{}' ? j : '';
}

// inputView shows what a call will do: a diff for Edit and Write, the
// command for Bash, the arguments otherwise.
function inputView(name, inp) {
  if (name === 'Edit' && typeof inp.old_string === 'string') {
    return diffView(lineDiff(inp.old_string, inp.new_string || ''), inp.replace_all ? 'every occurrence' : '');
  }
  if (name === 'Write' && typeof inp.content === 'string') {
    return diffView(lineDiff('', inp.content), 'whole file');
  }
  if (name === 'Bash' && typeof inp.command === 'string') {
    return el('pre', 'command', '$ ' + inp.command);
  }
  if (name === 'ExitPlanMode' && typeof inp.plan === 'string') {
    const d = el('details', 'input');
    d.appendChild(el('summary', null, 'plan'));
    const plan = el('div', 'plan markdown');
    plan.appendChild(render(inp.plan));
    d.appendChild(plan);
    return d;
  }
  if (name === 'Task' && typeof inp.prompt === 'string') {
    const d = el('details', 'input');
    d.appendChild(el('summary', null, 'prompt'));
    d.appendChild(el('pre', null, inp.prompt));
    return d;
  }
  const d = el('details', 'input');
  d.appendChild(el('summary', null, 'input'));
  d.appendChild(el('pre', null, JSON.stringify(inp, null, 2)));
  return d;
}

function diffView(rows, note) {
  const box = el('div', 'diff');
  if (note) box.appendChild(el('div', 'diff-note', note));
  const pre = el('pre');
  for (const r of rows) {
    const cls = r.op === '+' ? 'add' : r.op === '-' ? 'del' : 'ctx';
    pre.appendChild(el('span', 'dl ' + cls, r.op + ' ' + r.text + '\n'));
  }
  box.appendChild(pre);
  return box;
}

function toolUse(ln, ev, child) {
  // Known: a replay, or a Task whose subagent's events came first.
  if (T.cards.has(key(ev)) || (ev.name === 'Task' && T.tasks.has(ev.id))) return;
  const card = makeCard(ev, ev.name, parseInput(ev.input));
  add(ln, card.el);
  if (child) childStats(ev.parent_tool_use_id, { tool: ev.name + (card.summary ? ' ' + card.summary : '') });
}

function makeCard(ev, name, inp) {
  const root = el('div', 'card tool running');
  root.dataset.id = ev.id;
  if (ev.agent_id) root.dataset.agent = ev.agent_id;
  root.dataset.tool = name || '';
  const head = el('div', 'card-head');
  head.appendChild(el('span', 'dot'));
  head.appendChild(el('b', 'tool-name', name || 'tool'));
  const sum = summary(name, inp);
  if (sum) head.appendChild(el('span', 'summary', sum.length > 160 ? sum.slice(0, 160) + '…' : sum));
  const state = el('span', 'state', 'running');
  head.appendChild(state);
  root.appendChild(head);
  if (name !== 'TodoWrite' && name !== 'AskUserQuestion') root.appendChild(inputView(name, inp));
  const card = { el: root, state, name, summary: sum, lane: null, sub: null };
  T.cards.set(key(ev), card);
  if (name === 'Task') T.tasks.set(ev.id, card);
  return card;
}

function setState(card, cls, text) {
  card.el.classList.remove('running', 'waiting', 'done', 'error', 'denied', 'cancelled');
  card.el.classList.add(cls);
  card.state.textContent = text;
}

function toolDone(ev) {
  const card = T.cards.get(key(ev));
  settle(key(ev));
  if (!card) return;
  setState(card, ev.is_error ? 'error' : 'done', (ev.is_error ? 'failed' : 'done') + ' · ' + fmtMs(ev.duration_ms));
}

function toolResult(ln, ev) {
  let card = T.cards.get(key(ev));
  settle(key(ev));
  if (!card) {
    card = makeCard(ev, ev.name, {});
    add(ln, card.el);
  }
  if (ev.denied) setState(card, 'denied', 'denied');
  else if (ev.cancelled) setState(card, 'cancelled', 'cancelled');
  else if (ev.is_error) setState(card, 'error', 'failed · ' + fmtMs(ev.duration_ms));
  else setState(card, 'done', 'done · ' + fmtMs(ev.duration_ms));
  if (card.result) card.result.remove();
  const res = el('details', 'result');
  const lines = (ev.content || '').split('\n').length;
  res.appendChild(el('summary', null, ev.denied ? 'denied' : `result · ${lines} line${lines === 1 ? '' : 's'}`));
  if (ev.reason) res.appendChild(el('div', 'reason', ev.reason));
  if (ev.content) res.appendChild(el('pre', null, ev.content));
  if (ev.spill_path) res.appendChild(el('div', 'reason', 'full output: ' + ev.spill_path));
  res.open = ev.is_error || ev.denied || (lines <= 6 && card.name !== 'Read');
  if (ev.subagent) {
    const s = ev.subagent;
    childStats(ev.id, { turns: s.turns, cost: s.cost_usd, type: s.agent_type, final: true });
  }
  card.result = res;
  card.el.appendChild(res);
}

// --- subagents: a Task card holds its subagent's events

function childLane(taskId) {
  let card = T.tasks.get(taskId);
  if (!card) {
    // A child event before its Task call (a replay cut short): a card to hold it.
    card = makeCard({ id: taskId }, 'Task', {});
    add(T.main, card.el);
  }
  if (!card.lane) {
    const d = el('details', 'subagent');
    d.open = true;
    const s = el('summary', null, 'subagent');
    d.appendChild(s);
    const body = el('div', 'subagent-body');
    d.appendChild(body);
    const res = card.el.querySelector(':scope > details.result');
    card.el.insertBefore(d, res);
    card.lane = lane(body);
    card.sub = { summary: s, tools: 0, turns: 0, cost: 0, last: '', type: '', agent: '' };
  }
  return card.lane;
}

function childStats(taskId, u) {
  childLane(taskId);
  const c = T.tasks.get(taskId);
  const s = c.sub;
  if (u.tool) { s.tools++; s.last = u.tool; }
  if (u.turn) s.turns = Math.max(s.turns, u.turn);
  if (u.turns) s.turns = u.turns;
  if (typeof u.cost === 'number') s.cost = u.cost;
  if (u.type) s.type = u.type;
  if (u.final) c.lane.root.parentElement.open = false;
  const parts = [s.type || 'subagent'];
  if (s.turns) parts.push(`${s.turns} turn${s.turns === 1 ? '' : 's'}`);
  if (s.tools) parts.push(`${s.tools} call${s.tools === 1 ? '' : 's'}`);
  if (s.cost) parts.push(fmtCost(s.cost));
  if (s.last && !u.final) parts.push('last: ' + s.last.slice(0, 80));
  s.summary.textContent = parts.join(' · ');
}

function childDone(ev) {
  const ln = childLane(ev.parent_tool_use_id);
  childStats(ev.parent_tool_use_id, { turns: ev.turns, cost: ev.cost_usd });
  if (ev.reason !== 'done') line(ln, 'warning', `subagent ended: ${ev.reason}${ev.error ? ' — ' + ev.error : ''}`);
}

// --- permission requests and questions

const CHOICE_LABELS = {
  allow_once: 'Allow once',
  allow_always: 'Allow always',
  deny: 'Deny',
  approve_accept_edits: 'Approve, accept edits',
  approve_default: 'Approve, ask before edits',
  keep_planning: 'Keep planning',
};
const MODE_AFTER = { approve_accept_edits: 'acceptEdits', approve_default: 'default' };

function askPermission(ev) {
  const k = key(ev);
  if (T.asks.has(k) || T.resolved.has(k)) return;
  const card = T.cards.get(k);
  if (card) setState(card, 'waiting', 'waiting for approval');
  const d = el('div', 'dialog permission');
  d.setAttribute('role', 'dialog');
  d.dataset.id = ev.id;
  const head = el('div', 'dialog-head');
  head.appendChild(el('span', null, ev.plan ? 'Approve the plan?' : 'Allow '));
  if (!ev.plan) head.appendChild(el('b', null, ev.name));
  if (!ev.plan) head.appendChild(el('span', null, '?'));
  if (ev.parent_tool_use_id) head.appendChild(el('span', 'badge', 'subagent ' + (ev.agent_id || '')));
  if (ev.needs_person) head.appendChild(el('span', 'badge warn', 'needs a person'));
  d.appendChild(head);
  if (ev.reason) d.appendChild(el('div', 'reason', ev.reason));
  if (ev.plan) {
    const plan = el('div', 'plan markdown');
    plan.appendChild(render(ev.plan));
    d.appendChild(plan);
  } else {
    const v = inputView(ev.name, parseInput(ev.input));
    if (v.tagName === 'DETAILS') v.open = true;
    d.appendChild(v);
  }
  if (ev.suggest && ev.suggest.length) d.appendChild(el('div', 'suggest', 'Allow always remembers: ' + ev.suggest.join(', ')));
  const note = el('input', 'note');
  note.type = 'text';
  note.placeholder = ev.plan ? 'feedback for the model (with Keep planning)' : 'note for the model (optional)';
  d.appendChild(note);
  const buttons = el('div', 'buttons');
  for (const choice of ev.choices || ['allow_once', 'allow_always', 'deny']) {
    const b = el('button', 'choice ' + choice, CHOICE_LABELS[choice] || choice);
    b.type = 'button';
    b.dataset.choice = choice;
    b.addEventListener('click', () => {
      const f = { type: 'permission', session_id: S.session, id: ev.id, decision: choice };
      if (ev.agent_id) f.agent_id = ev.agent_id;
      if (note.value.trim()) f.note = note.value.trim();
      if (!send(f)) return;
      d.hidden = true;
      if (card && choice !== 'deny' && choice !== 'keep_planning') setState(card, 'running', 'running');
      if (MODE_AFTER[choice] && !ev.parent_tool_use_id) {
        S.mode = MODE_AFTER[choice];
        updateControls();
      }
    });
    buttons.appendChild(b);
  }
  d.appendChild(buttons);
  T.asks.set(key(ev), d);
  $('dialogs').appendChild(d);
  updateControls();
  d.scrollIntoView({ block: 'nearest' });
}

function askQuestion(ev) {
  if (T.asks.has(key(ev)) || T.resolved.has(key(ev))) return;
  const d = el('div', 'dialog question');
  d.setAttribute('role', 'dialog');
  d.dataset.id = ev.id;
  const head = el('div', 'dialog-head', ev.question);
  if (ev.parent_tool_use_id) head.appendChild(el('span', 'badge', 'subagent ' + (ev.agent_id || '')));
  d.appendChild(head);
  const answer = (option, text) => {
    const f = { type: 'answer', session_id: S.session, id: ev.id };
    if (ev.agent_id) f.agent_id = ev.agent_id;
    if (option) f.option = option;
    if (text) f.text = text;
    if (send(f)) d.hidden = true;
  };
  const buttons = el('div', 'buttons');
  for (const o of ev.options || []) {
    const b = el('button', 'option', o);
    b.type = 'button';
    b.addEventListener('click', () => answer(o, ''));
    buttons.appendChild(b);
  }
  d.appendChild(buttons);
  const row = el('div', 'free');
  const input = el('input', 'note');
  input.type = 'text';
  input.placeholder = 'or type an answer';
  const ok = el('button', 'option', 'Answer');
  ok.type = 'button';
  const submit = () => { if (input.value.trim()) answer('', input.value.trim()); };
  ok.addEventListener('click', submit);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') submit(); });
  row.append(input, ok);
  d.appendChild(row);
  T.asks.set(key(ev), d);
  $('dialogs').appendChild(d);
  updateControls();
  d.scrollIntoView({ block: 'nearest' });
}

// resolved: a request was answered, here or by another client.
function resolved(ev) {
  settle(key(ev));
  const card = T.cards.get(key(ev));
  if (card && ev.decision && ev.decision !== 'deny' && ev.decision !== 'keep_planning') setState(card, 'running', 'running');
}

// settle closes the dialog of a call that has been decided (here or by
// another client) or ended.
function settle(k) {
  T.resolved.add(k);
  const d = T.asks.get(k);
  if (d) {
    d.remove();
    T.asks.delete(k);
  }
}

// --- the rest of the timeline

function todoList(todos, cls) {
  const ul = el('ul', cls);
  for (const t of todos || []) {
    const mark = t.status === 'completed' ? '☑' : t.status === 'in_progress' ? '◐' : '☐';
    const text = t.status === 'in_progress' && t.active_form ? t.active_form : t.content;
    ul.appendChild(el('li', 'todo ' + t.status, mark + ' ' + text));
  }
  return ul;
}

function showTodos(todos) {
  const box = $('todos');
  box.replaceChildren(el('div', 'todos-head', 'Tasks'), todoList(todos, 'todos-list'));
  box.hidden = !todos || todos.length === 0;
}

function webSearch(ln, ev) {
  const text = ev.status === 'unavailable'
    ? 'web search unavailable: ' + (ev.error || '')
    : `search: ${ev.query} — ${ev.status}${ev.results ? ` (${ev.results.length} result${ev.results.length === 1 ? '' : 's'})` : ''}${ev.error ? ': ' + ev.error : ''}`;
  const old = ev.id && T.searches.get(ev.id);
  if (old) {
    old.textContent = text;
    return;
  }
  const n = line(ln, 'search', text);
  if (ev.id) T.searches.set(ev.id, n);
}

// citation lists a source under the answer block it supports; the answer
// goes on in the same block.
function citation(ln, ev) {
  let box = ln.text && ln.text.sources;
  if (!box) {
    box = el('div', 'line citation', 'sources:');
    if (ln.text) {
      ln.text.el.after(box);
      ln.text.sources = box;
    } else {
      add(ln, box);
    }
  }
  const a = el('a', null, ev.title || ev.url);
  if (/^https?:\/\//i.test(ev.url || '')) {
    a.href = ev.url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer nofollow';
  }
  if (ev.cited_text) a.title = ev.cited_text;
  box.append(' ', a);
}

function loopComplete(ev) {
  S.busy = false;
  // The answer whole before the end line: its last delta may still wait
  // for the render timer.
  if (renderTimer) {
    clearTimeout(renderTimer);
    flushText();
  }
  for (const id of [...T.asks.keys()]) settle(id);
  for (const c of T.cards.values()) {
    if (c.el.classList.contains('running') || c.el.classList.contains('waiting')) {
      if (ev.reason === 'cancelled') setState(c, 'cancelled', 'cancelled');
    }
  }
  if (ev.reason === 'cancelled') line(T.main, 'end cancelled', '■ cancelled');
  else if (ev.reason === 'error') line(T.main, 'end error', '✖ error: ' + (ev.error || 'the run failed'));
  else if (ev.reason === 'max_turns') line(T.main, 'end warning', '■ stopped: the turn limit was reached');
  T.main.text = null;
  T.main.thinking = null;
  updateControls();
}

function resultLine(ev) {
  if (typeof ev.total_cost_usd === 'number') $('cost').textContent = fmtCost(ev.total_cost_usd);
  const parts = [];
  if (ev.num_turns) parts.push(`${ev.num_turns} turn${ev.num_turns === 1 ? '' : 's'}`);
  if (ev.duration_ms) parts.push(fmtMs(ev.duration_ms));
  if (typeof ev.total_cost_usd === 'number') parts.push(fmtCost(ev.total_cost_usd));
  line(T.main, 'end result', parts.join(' · '));
}

// retryNotice says a retry in the words every frontend uses
// (event.Retry.Notice).
function retryNotice(r) {
  let what = (r.kind || '').replaceAll('_', ' ');
  what = { rate_limit: 'rate limited', server: 'server error', timeout: 'no answer', broken_stream: 'connection lost', '': 'failed', other: 'failed' }[r.kind || ''] ?? what;
  if (r.status_code) what += ` (HTTP ${r.status_code})`;
  const wait = r.wait_ms >= 9950 ? `${Math.round(r.wait_ms / 1000)} s` : `${(r.wait_ms / 1000).toFixed(1)} s`;
  return `${what} — retrying in ${wait} (${r.retry}/${r.max_retries})`;
}

// --- status line

function setUsage(u) {
  if (!u) {
    $('tokens').textContent = '';
    $('cost').textContent = '';
    return;
  }
  const t = u.total || {};
  const input = (t.input_tokens || 0) + (t.cache_read_input_tokens || 0) + (t.cache_creation_input_tokens || 0);
  let s = `${fmtTokens(input)} in · ${fmtTokens(t.output_tokens || 0)} out`;
  const c = u.call || {};
  const ctx = (c.input_tokens || 0) + (c.cache_read_input_tokens || 0) + (c.cache_creation_input_tokens || 0) + (c.output_tokens || 0);
  if (u.context_window) s += ` · ctx ${Math.round((100 * ctx) / u.context_window)}%`;
  $('tokens').textContent = s;
  $('cost').textContent = fmtCost(u.cost_usd || 0);
  if (u.model) {
    S.model = u.model;
    $('model').textContent = u.model;
  }
}

function fmtTokens(n) {
  n = n || 0;
  return n >= 1e6 ? (n / 1e6).toFixed(1) + 'M' : n >= 1e3 ? (n / 1e3).toFixed(1) + 'k' : String(n);
}
function fmtCost(c) { return '$' + (c || 0).toFixed(c >= 1 ? 2 : 4); }
function fmtMs(ms) { return ms >= 1000 ? (ms / 1000).toFixed(1) + ' s' : (ms || 0) + ' ms'; }

function setConn(text, cls) {
  const c = $('conn');
  c.textContent = text;
  c.className = 'conn ' + cls;
}

function notice(text) {
  const n = $('notice');
  n.textContent = text;
  n.hidden = !text;
}

// updateControls enables what this client may do: a controller (or a client
// about to start a session) prompts, decides and cancels; a watcher reads,
// and may take control.
function updateControls() {
  const attached = !!S.session;
  const watching = attached && !S.controller;
  const canAct = S.connected && !watching;
  document.body.classList.toggle('watching', watching);
  document.body.classList.toggle('busy', S.busy);
  $('prompt').disabled = !canAct;
  $('send').disabled = !canAct || S.busy;
  $('cancel').hidden = !S.busy;
  $('cancel').disabled = !canAct;
  $('mode').disabled = !canAct || !attached;
  $('mode').value = S.mode;
  $('model').textContent = S.model;
  $('take').hidden = !(attached && watching);
  $('take').disabled = !S.connected;
  $('role').textContent = !attached ? 'new session' : watching ? 'watching' : 'in control';
  $('prompt').placeholder = watching
    ? 'Another client controls this session: Take control to prompt.'
    : 'Ask nova… (Enter sends, Shift+Enter for a new line)';
  for (const b of $('dialogs').querySelectorAll('button, input')) b.disabled = !canAct;
}

// The timeline follows its end unless the reader scrolled up.
let follow = true;

function scrollDown() {
  const tl = $('timeline');
  if (follow) tl.scrollTop = tl.scrollHeight;
}

// --- sessions

function renderSessions(list) {
  const ul = $('session-list');
  ul.replaceChildren();
  if (list.length === 0) ul.appendChild(el('li', 'empty', 'no sessions yet'));
  for (const s of list) {
    const li = el('li', 'session' + (s.id === S.session ? ' current' : ''));
    li.dataset.id = s.id;
    const b = el('button', 'session-open');
    b.type = 'button';
    b.appendChild(el('span', 'first', s.first_prompt || '(no prompt)'));
    const meta = [];
    if (s.updated) meta.push(new Date(s.updated).toLocaleString());
    if (s.turns) meta.push(`${s.turns} turn${s.turns === 1 ? '' : 's'}`);
    if (s.cost_usd) meta.push(fmtCost(s.cost_usd));
    b.appendChild(el('span', 'meta', meta.join(' · ')));
    if (s.live) b.appendChild(el('span', 'badge live', 'live'));
    b.addEventListener('click', () => openSession(s.id));
    li.appendChild(b);
    ul.appendChild(li);
  }
}

function openSession(id) {
  if (id === S.session) return;
  resetTimeline();
  S.session = id;
  S.epoch = null;
  S.pendingNew = false;
  S.controller = false;
  S.busy = false;
  sessionStorage.setItem('nova.session', id);
  resume();
  updateControls();
}

function newSession() {
  resetTimeline();
  S.session = null;
  S.epoch = null;
  S.pendingNew = false;
  S.controller = false;
  S.busy = false;
  sessionStorage.removeItem('nova.session');
  updateControls();
  $('prompt').focus();
}

// --- the prompt

function sendPrompt() {
  const text = $('prompt').value;
  if (!text.trim() || S.busy) return;
  const f = { type: 'prompt', text };
  if (S.session) f.session_id = S.session;
  else S.pendingNew = true;
  if (!send(f)) {
    S.pendingNew = false;
    return;
  }
  // The prompt shows when the server sends it back (user_prompt), as every
  // client attached to the session sees it.
  S.lastPrompt = text;
  $('prompt').value = '';
  S.busy = true;
  updateControls();
  scrollDown();
}

function init() {
  resetTimeline();
  $('prompt').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendPrompt();
    }
  });
  $('send').addEventListener('click', sendPrompt);
  $('timeline').addEventListener('scroll', () => {
    const tl = $('timeline');
    follow = tl.scrollHeight - tl.scrollTop - tl.clientHeight < 60;
  });
  $('cancel').addEventListener('click', () => send({ type: 'cancel', session_id: S.session }));
  $('mode').addEventListener('change', () => {
    const mode = $('mode').value;
    if (S.session && send({ type: 'set_mode', session_id: S.session, mode })) S.mode = mode;
    else $('mode').value = S.mode;
  });
  $('take').addEventListener('click', () => send({ type: 'take_control', session_id: S.session }));
  $('new').addEventListener('click', newSession);
  $('sessions-toggle').addEventListener('click', () => {
    const a = $('sessions');
    a.hidden = !a.hidden;
    if (!a.hidden) send({ type: 'list_sessions' });
  });
  $('sessions-refresh').addEventListener('click', () => send({ type: 'list_sessions' }));
  updateControls();
  connect();
}

init();
