package tool

// Jobs are the session's background commands. (Being written: see the
// brief of issue 16's background commands.)
type Jobs struct{}
