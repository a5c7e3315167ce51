// node-helper: the two system calls the kubelet-hash executable needs and Node.js lacks, as a
// static binary of the standard library only (no cgo), embedded in the single executable and run
// by absolute path, so nothing is looked up on PATH:
//
//	node-helper flock FILE
//	    takes flock(LOCK_EX|LOCK_NB) on FILE (bbolt's lock, which containerd holds on meta.db while
//	    it runs), prints "locked" and holds it until its standard input ends (the parent closed
//	    it or died); exits 75 at once when another process holds the lock.
//	node-helper chroot ROOT COMMAND [ARG...]
//	    chroot(ROOT), chdir("/"), then execs COMMAND found on the host's usual PATH (the host's
//	    own tools: systemctl, nsenter, its package manager).
//
// Exit codes: 75 lock held elsewhere, 126 bad usage or a failed system call, 127 command not found.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

const hostPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "node-helper: "+format+"\n", args...)
	os.Exit(code)
}

func lock(path string) {
	// O_NOFOLLOW: the lock is on the file named, never on a symlink's target.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		fail(126, "open %s: %v", path, err)
	}
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if err == syscall.EWOULDBLOCK {
			fail(75, "%s is locked by another process", path)
		}
		fail(126, "flock %s: %v", path, err)
	}
	if _, err := os.Stdout.WriteString("locked\n"); err != nil {
		os.Exit(126)
	}
	// Held until stdin ends; the kernel drops the lock when this process exits.
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func chroot(root string, argv []string) {
	if err := syscall.Chroot(root); err != nil {
		fail(126, "chroot %s: %v", root, err)
	}
	if err := syscall.Chdir("/"); err != nil {
		fail(126, "chdir /: %v", err)
	}
	// The host's PATH, not the image's (an empty one in the agent's container).
	if err := os.Setenv("PATH", hostPath); err != nil {
		fail(126, "setenv: %v", err)
	}
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		fail(127, "%s: not found on the host's PATH (%s)", argv[0], hostPath)
	}
	if err := syscall.Exec(bin, argv, os.Environ()); err != nil {
		fail(126, "exec %s: %v", bin, err)
	}
}

func main() {
	args := os.Args[1:]
	switch {
	case len(args) == 2 && args[0] == "flock":
		lock(args[1])
	case len(args) >= 3 && args[0] == "chroot":
		chroot(args[1], args[2:])
	default:
		fail(126, "usage: node-helper flock FILE | node-helper chroot ROOT COMMAND [ARG...]")
	}
}
