package tool

// WebPolicy is the permission layer as WebFetch sees it once a call runs:
// the call itself was approved, but where the fetch then leads (the
// addresses a host resolves to, a redirect) was not.
type WebPolicy interface {
	// HostNamed reports whether an allow rule names host
	// (WebFetch(domain:host), or one of its parent domains). Only such a
	// host is reached at a private, loopback or link-local address, or
	// over plain http: the rule is the user's deliberate word about it.
	HostNamed(host string) bool
	// FetchAllowed reports whether a call fetching rawURL would run
	// without asking a person; if not, why (a rule denies it, or it
	// needs approval). A redirect to another host is followed only then.
	FetchAllowed(rawURL string) (ok bool, why string)
}
