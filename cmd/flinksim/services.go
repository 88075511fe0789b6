package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/flinkop/flinkop/harness/envtest"
	"github.com/flinkop/flinkop/harness/fleet"
)

// services measures how fast the embedded kube-apiserver creates Services, with and without
// a cluster IP, at several concurrencies: the figure the operator's Service slots rest on.
func services(args []string) error {
	fs := flag.NewFlagSet("services", flag.ContinueOnError)
	n := fs.Int("n", 1500, "Services created per measurement")
	at := fs.String("at", "4,16,64,256", "comma-separated creates under way at once")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	var levels []int
	for _, f := range strings.Split(*at, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return fmt.Errorf("--at: %q is not a positive number", f)
		}
		levels = append(levels, v)
	}
	if *n < 1 {
		return fmt.Errorf("--n must be positive, got %d", *n)
	}
	env, err := envtest.Start()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	fmt.Printf("flinksim services: %d Service creates per line on a real kube-apiserver\n", *n)
	for i, level := range levels {
		for _, headless := range []bool{false, true} {
			r, err := fleet.ServiceCreates(context.Background(), env.Client, fmt.Sprintf("svc-%d-%t", i, headless), *n, level, headless)
			if err != nil {
				return err
			}
			r.Write(os.Stdout)
		}
	}
	return nil
}
