// Command pause is the sandbox ("pause") container of the local cluster's real nodes: it holds a Pod's namespaces,
// reaps the zombies of a Pod that shares its process namespace, and exits 0 on SIGINT or SIGTERM — what the
// Kubernetes pause image does. No image is pulled from the internet here, so test/support/cluster-images.ts puts this
// static binary alone in an image and pushes it to the local registry, where containerd's sandbox_image points.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if os.Getpid() != 1 {
		os.Stderr.WriteString("pause: warning: not running as PID 1\n")
	}
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
