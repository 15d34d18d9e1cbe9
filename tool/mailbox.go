package tool

import (
	"context"
	"sync"
)

// Mail is one delivery to an agent: a background command or subagent that
// ended, or a message from another agent.
type Mail struct {
	// Kind is MailCommand, MailAgent, MailMessage or MailHook.
	Kind string
	// From is the sending agent's id, or the id of the command or
	// subagent that ended.
	From string
	// Text is what the model reads.
	Text string
	// Spent is what a background subagent that ended cost; the loop adds
	// it to the run's totals when it delivers the mail.
	Spent *Spent
}

// Mail kinds.
const (
	MailCommand = "command"
	MailAgent   = "agent"
	MailMessage = "message"
	// MailHook is what the session's hooks said about a subagent's call
	// (PostToolUse), for that subagent.
	MailHook = "hook"
)

// Mailbox is one agent's inbox: what its background work reports when it
// ends and what other agents send it. The loop drains it at the start of
// every turn (the pipeline's second step) into a <system-reminder>; nothing
// is ever written into history that was already sent.
//
// It also counts the background work the agent started whose end the agent
// has not been told of (Expect): a run nobody watches (print mode) does not
// end while some is outstanding (Wait).
//
// Safe for concurrent use.
type Mailbox struct {
	mu          sync.Mutex
	items       []Mail
	outstanding int
	wake        chan struct{} // closed and replaced whenever something changes
}

// NewMailbox returns an empty mailbox.
func NewMailbox() *Mailbox { return &Mailbox{wake: make(chan struct{})} }

// changed wakes the waiters; mu is held.
func (m *Mailbox) changed() {
	close(m.wake)
	m.wake = make(chan struct{})
}

// Post adds m to the mailbox.
func (m *Mailbox) Post(mail Mail) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.items = append(m.items, mail)
	m.changed()
}

// Expect counts one piece of background work the agent started. Call the
// returned function exactly once when the agent has been told of its end
// (or will never need to be): with a Mail to post it as that news, or nil
// when the agent already knows (it read the end itself, or stopped the
// work). Later calls of the function do nothing.
func (m *Mailbox) Expect() func(*Mail) {
	m.mu.Lock()
	m.outstanding++
	m.mu.Unlock()
	var once sync.Once
	return func(mail *Mail) {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.outstanding--
			if mail != nil {
				m.items = append(m.items, *mail)
			}
			m.changed()
		})
	}
}

// Retract takes back the undelivered mail of kind from from: news the
// agent got another way (TaskOutput returned a subagent's end before the
// mail of that end was delivered).
func (m *Mailbox) Retract(kind, from string) []Mail {
	m.mu.Lock()
	defer m.mu.Unlock()
	var taken []Mail
	kept := m.items[:0]
	for _, it := range m.items {
		if it.Kind == kind && it.From == from {
			taken = append(taken, it)
			continue
		}
		kept = append(kept, it)
	}
	m.items = kept
	if len(taken) > 0 {
		m.changed()
	}
	return taken
}

// Drain takes everything delivered so far, in arrival order.
func (m *Mailbox) Drain() []Mail {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.items
	m.items = nil
	return out
}

// Outstanding is how many pieces of background work the agent started are
// still to report.
func (m *Mailbox) Outstanding() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.outstanding
}

// State reports, at one instant, how many deliveries wait, how much
// background work is outstanding, and a channel closed at the next change.
func (m *Mailbox) State() (items, outstanding int, changed <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items), m.outstanding, m.wake
}

// Wait blocks until the mailbox holds something, or nothing is
// outstanding, or ctx ends. It reports whether there is mail to drain.
func (m *Mailbox) Wait(ctx context.Context) bool {
	for {
		m.mu.Lock()
		has, idle, wake := len(m.items) > 0, m.outstanding == 0, m.wake
		m.mu.Unlock()
		if has || idle {
			return has
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		}
	}
}
