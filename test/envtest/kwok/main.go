// Command kwok runs KWOK (sigs.k8s.io/kwok, unmodified) as the simulated nodes of the project's
// test cluster. Every upstream flag works; the stages it needs are built in: KWOK's own node
// stages (initialize, heartbeat with a Lease) and pod-complete/pod-delete, plus this module's
// stages.yaml (pod-ready that can be held back, pod-not-ready). KWOK reads them from a file, so
// they are written to one in the OS temp dir and passed as the first --config.
package main

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"sigs.k8s.io/kwok/kustomize/stage/node/fast"
	heartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

//go:embed stages.yaml
var ownStages string

func main() {
	stages, err := writeStages()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kwok: writing the stage configuration: %v\n", err)
		os.Exit(1)
	}
	os.Args = append([]string{os.Args[0], "--config=" + stages}, os.Args[1:]...)
	code := run()
	_ = os.Remove(stages)
	os.Exit(code)
}

func run() int {

	flags := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flags.ParseErrorsAllowlist.UnknownFlags = true
	flags.Usage = func() {}
	ctx := signals.SetupSignalContext()
	ctx, logger := log.InitFlags(ctx, flags)
	ctx, err := config.InitFlags(ctx, flags)
	if err != nil {
		logger.Error("Init config flags", "err", err)
		return 1
	}
	command := cmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flags)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("Execute exit", "err", err)
		return 1
	}
	return 0
}

func writeStages() (string, error) {
	f, err := os.CreateTemp("", "kwok-stages-*.yaml")
	if err != nil {
		return "", err
	}
	docs := []string{fast.DefaultNodeInit, heartbeat.DefaultNodeHeartbeatWithLease, podfast.DefaultPodComplete, podfast.DefaultPodDelete, ownStages}
	for i := range docs {
		docs[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(docs[i]), "---"))
	}
	if _, err := f.WriteString(strings.Join(docs, "\n---\n") + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}
