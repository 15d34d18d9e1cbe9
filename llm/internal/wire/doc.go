// Package wire is what the provider adapters (llm/anthropic, llm/openai,
// llm/openaichat) do alike, whatever their protocol: keeping each message's
// wire encoding between requests (Cache), sending requests and reading
// server-sent events (HTTP, SSE), running a call and its stream against the
// llm.Client contract (Call, Pump), and telling failures apart (StatusKind,
// RetryAfter, Transport). An adapter keeps only what its protocol decides:
// how messages and events look on the wire and what its errors mean.
//
// Nothing here is provider-specific, and nothing here is visible outside llm.
package wire
