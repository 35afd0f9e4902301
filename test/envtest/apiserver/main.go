// Command apiserver runs a real kube-apiserver (k8s.io/kubernetes, unmodified) for the
// project's integration tests, optionally with an etcd server embedded in the same process.
//
// It is a multi-call binary: a first argument of "kube-controller-manager", "kube-scheduler",
// "kubelet", "kube-proxy" or "kubectl" runs that upstream command instead (same module, same
// version), with every upstream flag; so does invoking it through a link named "kubectl". The
// kubelet and kube-proxy run the local cluster's real nodes (test/support/real-node.ts).
//
// Every upstream kube-apiserver flag works unchanged. Three private flags, removed from the
// argument list before the upstream command parses it, start the embedded etcd:
//
//	--embedded-etcd-dir=DIR          data directory (kept across restarts of this process)
//	--embedded-etcd-client-port=N    loopback client port (also passed as --etcd-servers)
//	--embedded-etcd-peer-port=N      loopback peer port
package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectl "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"

	_ "time/tzdata"
)

func main() {
	if filepath.Base(os.Args[0]) == "kubectl" {
		os.Exit(runKubectl(os.Args[1:]))
	}
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "kube-controller-manager":
			cmd := kcm.NewControllerManagerCommand()
			cmd.SetArgs(os.Args[2:])
			os.Exit(cli.Run(cmd))
		case "kube-scheduler":
			cmd := scheduler.NewSchedulerCommand()
			cmd.SetArgs(os.Args[2:])
			os.Exit(cli.Run(cmd))
		case "kubelet":
			cmd := kubelet.NewKubeletCommand(context.Background())
			cmd.SetArgs(os.Args[2:])
			os.Exit(cli.Run(cmd))
		case "kube-proxy":
			cmd := proxy.NewProxyCommand()
			cmd.SetArgs(os.Args[2:])
			os.Exit(cli.Run(cmd))
		case "kubectl":
			os.Exit(runKubectl(os.Args[2:]))
		}
	}
	args, etcdDir, clientPort, peerPort := splitPrivateFlags(os.Args[1:])
	if etcdDir != "" {
		if clientPort == "" || peerPort == "" {
			fmt.Fprintln(os.Stderr, "apiserver: --embedded-etcd-dir needs --embedded-etcd-client-port and --embedded-etcd-peer-port")
			os.Exit(2)
		}
		clientURL, err := startEtcd(etcdDir, clientPort, peerPort)
		if err != nil {
			fmt.Fprintf(os.Stderr, "apiserver: embedded etcd: %v\n", err)
			os.Exit(1)
		}
		args = append(args, "--etcd-servers="+clientURL)
	}
	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(args)
	os.Exit(cli.Run(cmd))
}

// runKubectl runs kubectl as upstream's cmd/kubectl does (plugins such as kubectl-olm on the
// PATH included).
func runKubectl(args []string) int {
	os.Args = append([]string{"kubectl"}, args...)
	if err := cli.RunNoErrOutput(kubectl.NewDefaultKubectlCommand()); err != nil {
		kubectlutil.CheckErr(err)
		return 1
	}
	return 0
}

func splitPrivateFlags(in []string) (rest []string, dir, clientPort, peerPort string) {
	for _, a := range in {
		switch {
		case strings.HasPrefix(a, "--embedded-etcd-dir="):
			dir = strings.TrimPrefix(a, "--embedded-etcd-dir=")
		case strings.HasPrefix(a, "--embedded-etcd-client-port="):
			clientPort = strings.TrimPrefix(a, "--embedded-etcd-client-port=")
		case strings.HasPrefix(a, "--embedded-etcd-peer-port="):
			peerPort = strings.TrimPrefix(a, "--embedded-etcd-peer-port=")
		default:
			rest = append(rest, a)
		}
	}
	return rest, dir, clientPort, peerPort
}

func startEtcd(dir, clientPort, peerPort string) (string, error) {
	cfg := embed.NewConfig()
	cfg.Name = "test"
	cfg.Dir = dir
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "error"
	client, err := url.Parse("http://127.0.0.1:" + clientPort)
	if err != nil {
		return "", err
	}
	peer, err := url.Parse("http://127.0.0.1:" + peerPort)
	if err != nil {
		return "", err
	}
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return "", fmt.Errorf("not ready after 60s")
	}
	go func() {
		if err := <-e.Err(); err != nil {
			fmt.Fprintf(os.Stderr, "apiserver: embedded etcd failed: %v\n", err)
			os.Exit(1)
		}
	}()
	return client.String(), nil
}
