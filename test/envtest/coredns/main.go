// Command coredns is the local cluster's DNS server: CoreDNS (github.com/coredns/coredns, unmodified) with the
// plugins a cluster's DNS needs and nothing that reaches beyond this machine — no `forward`: a name outside
// cluster.local gets an answer from the kubernetes plugin's fallthrough-free zone or SERVFAIL, never an upstream query.
// test/support/cluster-images.ts puts the static binary in an image; test/support/real-node.ts runs it as the
// kube-dns Deployment, as kubeadm does.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The order plugins run in (CoreDNS's plugin.cfg order, reduced to those compiled in).
var directives = []string{"errors", "log", "health", "ready", "cache", "loadbalance", "kubernetes"}

func init() {
	dnsserver.Directives = directives
}

func main() {
	coremain.Run()
}
