package tool

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestJobsOutliveTheStartingThread: Pdeathsig fires when the thread that
// forked a process ends; a job started from a goroutine whose thread the
// runtime then ends (it exits locked) must not die with it.
func TestJobsOutliveTheStartingThread(t *testing.T) {
	j := newJobs(t)
	type started struct {
		in  JobInfo
		err error
	}
	res := make(chan started, 1)
	startAndEnd := func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		in, err := j.Start(shJob("sleep 100", nil))
		res <- started{in, err}
	}
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() != syscall.Getpid() {
			startAndEnd()
			return
		}
		// The runtime never ends the main thread: hold it, so that the
		// second goroutine runs on another.
		done := make(chan struct{})
		go func() {
			defer close(done)
			startAndEnd()
		}()
		<-done
		runtime.UnlockOSThread()
	}()
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	time.Sleep(300 * time.Millisecond)
	if in, _ := j.Get(r.in.ID); !in.Running {
		t.Errorf("the job died with the thread that started it: %+v", in)
	}
	if sig := j.find(r.in.ID).spec.Cmd.SysProcAttr.Pdeathsig; sig != syscall.SIGKILL {
		t.Errorf("Pdeathsig = %v", sig)
	}
}
