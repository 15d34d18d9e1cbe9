package tool

import (
	"errors"
	"time"
)

// Jobs are the session's background commands. (Being written: see the
// brief of issue 16's background commands.)
type Jobs struct{}

// JobInfo describes one background command.
type JobInfo struct {
	ID, Command, Description, Owner string
	Started, Ended                  time.Time
	Running, Killed                 bool
	ExitCode                        int
	OutputPath                      string
	OutputBytes                     int64
}

// List returns the jobs in start order.
func (j *Jobs) List() []JobInfo { return nil }

// Kill stops a job.
func (j *Jobs) Kill(id string) error { return errors.New("no such background command: " + id) }

// ErrNoJobs is the error of asking for background commands where none can run.
var ErrNoJobs = errors.New("background commands are not available in this session")

// KillOwner stops the jobs an agent started.
func (j *Jobs) KillOwner(owner string) {}

// NewJobs (placeholder).
func NewJobs(dir string) *Jobs { return &Jobs{} }

// Close (placeholder).
func (j *Jobs) Close() {}
