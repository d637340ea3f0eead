package clitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/command"
)

// mainChildEnv names the environment variable that makes a test binary run a command's main in
// place of the test that MainChild guards: its value is the command's arguments, as JSON.
const mainChildEnv = "QAPIPE_MAIN_CHILD"

// MainChild, called first in a test function, runs main (which exits) when this process is a
// child that StartMain started for that test, with os.Args set to the command's arguments, so
// that main reads them, its signals and its streams as the built command would. Otherwise it
// skips the test.
func MainChild(t *testing.T, prog string, main func()) {
	argsJSON := os.Getenv(mainChildEnv)
	if argsJSON == "" {
		t.Skip("the child process of a test that signals a command")
	}
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		t.Fatal(err)
	}
	os.Args = append([]string{prog}, args...)
	main()
	t.Fatal("main returned")
}

// Process is a command's main running in a child process (see StartMain).
type Process struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer // read only after the process has exited
	stderr notifyBuffer
	exited chan struct{}
	err    error // of cmd.Wait, set before exited is closed

	last os.Signal // the last signal Signal sent
}

// StartMain starts this test binary again to run only the test named test, which must begin
// with MainChild, as a command with args and stdin. The test's cleanup kills it if it is still
// running.
func StartMain(t *testing.T, test string, args []string, stdin string) *Process {
	t.Helper()
	file := filepath.Join(t.TempDir(), "stdin.jsonl")
	if err := os.WriteFile(file, []byte(stdin), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return startMain(t, test, args, in)
}

// StartMainPipe is StartMain with a pipe for stdin, whose write end it returns: the command
// reads what the test writes when it writes it, and its end when the test closes it.
func StartMainPipe(t *testing.T, test string, args []string) (*Process, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	p := startMain(t, test, args, r)
	r.Close() // the child's now
	return p, w
}

func startMain(t *testing.T, test string, args []string, in *os.File) *Process {
	t.Helper()
	p := &Process{exited: make(chan struct{}), stderr: notifyBuffer{changed: make(chan struct{}, 1)}}
	p.cmd = MainCommand(test, args)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = in, &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// MainCommand returns the command that runs this test binary again to run only the test named
// test, which must begin with MainChild, as a command with args; the caller sets its streams and
// runs it (StartMain does both, with a file as stdin and buffers as stdout and stderr).
func MainCommand(test string, args []string) *exec.Cmd {
	argsJSON, err := json.Marshal(args)
	if err != nil {
		panic(err) // a []string always marshals
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), mainChildEnv+"="+string(argsJSON))
	return cmd
}

// childTimeout bounds every wait on a child: far longer than any of them takes, it only turns a
// hung test into a failure that shows what the child wrote.
const childTimeout = 2 * time.Minute

// Signal sends sig to the process as a person would: the same signal again only once the
// command would no longer take it for the last one's echo (command.SignalEcho), which it times
// from when it took the last one in (which the caller waited for on stderr, say), not from when
// it was sent.
func (p *Process) Signal(t *testing.T, sig os.Signal) {
	t.Helper()
	SkipIgnored(t, sig)
	if sig == p.last {
		time.Sleep(command.SignalEcho(sig) + 100*time.Millisecond)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
	p.last = sig
}

// SkipIgnored skips the test if this process started with any of sigs ignored: a child it starts
// then ignores them too (a command catches SIGINT and SIGHUP only if they were not ignored), so a
// test that sends them would wait for an answer that never comes. A test binary run directly as
// a background job of a non-interactive shell starts so with SIGINT; go test does not pass that on.
func SkipIgnored(t *testing.T, sigs ...os.Signal) {
	t.Helper()
	for _, sig := range sigs {
		if signal.Ignored(sig) {
			t.Skipf("%v is ignored by this process (a background job of a shell, or nohup), so the command it starts ignores it too", sig)
		}
	}
}

// WaitStderr waits until the process has written want to stderr.
func (p *Process) WaitStderr(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(childTimeout)
	for !strings.Contains(p.stderr.String(), want) {
		select {
		case <-p.stderr.changed:
		case <-p.exited:
			if !strings.Contains(p.stderr.String(), want) {
				t.Fatalf("the child exited (%v) without writing %q to stderr:\n%s", p.err, want, p.stderr.String())
			}
		case <-timeout:
			t.Fatalf("the child did not write %q to stderr in %v:\n%s", want, childTimeout, p.stderr.String())
		}
	}
}

// Kill stops the process with SIGKILL, as a crash would: nothing is flushed, closed or deferred.
func (p *Process) Kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// Stderr returns what the process has written to stderr so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// Wait waits for the process to exit and returns its exit code and what it wrote.
func (p *Process) Wait(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(childTimeout):
		p.cmd.Process.Kill()
		<-p.exited
		t.Fatalf("the child did not exit in %v:\n%s", childTimeout, p.stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
	case errors.As(p.err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("child: %v", p.err)
	}
	return code, p.stdout.String(), p.stderr.String()
}

// notifyBuffer is a buffer that the child's output is copied into while the test reads it, and
// that says when it has grown.
type notifyBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // capacity 1: a pending notice
}

func (n *notifyBuffer) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case n.changed <- struct{}{}:
	default:
	}
	return n.b.Write(p)
}

func (n *notifyBuffer) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.b.String()
}

// Receive returns the next value of ch, failing the test if none comes in childTimeout: a bound
// on a hang, not a timing assertion.
func Receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(childTimeout):
		t.Fatalf("no %s in %v", what, childTimeout)
		panic("unreachable")
	}
}

// ChildOutput runs this test binary again to run only the test named test, with the environment
// variables env (NAME=value) added, and returns the first line that test printed. The test, which
// does nothing unless one of those variables is set, checks what only a process of its own can
// show, such as memory that no other test has touched.
func ChildOutput(t *testing.T, test string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v (%s)", test, env, err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first
}

// RunChildren starts n copies of this test binary at once, each running only the test named test
// with env(i) added to its environment (i from 0 to n-1), waits for them all, and fails t with
// a child's output when it failed.
func RunChildren(t *testing.T, test string, n int, env func(i int) []string) {
	t.Helper()
	// Every child started is waited for before t fails, so that none outlives the test (and its
	// temporary folder, or the server it asks).
	var cmds []*exec.Cmd
	outs := make([]bytes.Buffer, n)
	var startErr error
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
		cmd.Env = append(os.Environ(), env(i)...)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if startErr = cmd.Start(); startErr != nil {
			break
		}
		cmds = append(cmds, cmd)
	}
	failed := false
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s, process %d of %d: %v\n%s", test, i+1, n, err, outs[i].String())
			failed = true
		}
	}
	if startErr != nil {
		t.Fatalf("%s, process %d of %d: %v", test, len(cmds)+1, n, startErr)
	}
	if failed {
		t.FailNow()
	}
}
