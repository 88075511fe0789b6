package config

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// Keys of the live reload, the Apache operator's.
const (
	KeyDynamicConfig         = "kubernetes.operator.dynamic.config.enabled"
	KeyDynamicConfigInterval = "kubernetes.operator.dynamic.config.check.interval"
	// NamespacePrefix starts a key that holds for one namespace only:
	// NamespacePrefix + "<namespace>." + an option.
	NamespacePrefix = "kubernetes.operator.default-configuration.namespace."
	// DefaultDynamicConfigInterval is the Apache operator's check interval.
	DefaultDynamicConfigInterval = 5 * time.Minute
	// MinDynamicConfigInterval bounds how often the file is read.
	MinDynamicConfigInterval = time.Second
)

// Live holds the operator-wide options, replaced when their file changes (see Watch).
// Safe for concurrent use.
type Live struct {
	p         atomic.Pointer[liveState]
	constrain atomic.Pointer[func(Options) Options]
}

type liveState struct {
	opts Options
	flat map[string]string
	data []byte
}

// NewLive holds the options read from data (a file's content; nil: the defaults).
func NewLive(data []byte) (*Live, error) {
	l := &Live{}
	st, err := parse(data)
	if err != nil {
		return nil, err
	}
	l.p.Store(st)
	return l, nil
}

// FixedOptions holds opts, never reloaded: what the harness and tests give the reconcilers.
func FixedOptions(opts Options) *Live {
	l := &Live{}
	l.p.Store(&liveState{opts: opts, flat: map[string]string{}})
	return l
}

func parse(data []byte) (*liveState, error) {
	flat, err := Flat(data)
	if err != nil {
		return nil, err
	}
	opts, err := Defaults().With(flat)
	if err != nil {
		return nil, err
	}
	return &liveState{opts: opts, flat: flat, data: bytes.Clone(data)}, nil
}

// Options are the operator-wide options now.
func (l *Live) Options() Options { return l.p.Load().opts }

// Constrain applies f to the options now and to every reload: what the operator cannot do
// whatever the file says (record snapshots without their CRD, say).
func (l *Live) Constrain(f func(Options) Options) {
	l.constrain.Store(&f)
	st := *l.p.Load()
	st.opts = f(st.opts)
	l.p.Store(&st)
}

// Flat are the operator-wide options now as the file gives them, key by key.
func (l *Live) Flat() map[string]string { return maps.Clone(l.p.Load().flat) }

// For are the options of a resource in namespace: the operator-wide ones overridden by the
// keys NamespacePrefix+namespace+"."+option gives, as the Apache operator's per-namespace
// defaults do. A malformed namespace value is an error naming its key; the operator-wide
// options are returned with it.
func (l *Live) For(namespace string) (Options, error) {
	st := l.p.Load()
	prefix := NamespacePrefix + namespace + "."
	over := map[string]string{}
	for k, v := range st.flat {
		if rest, ok := strings.CutPrefix(k, prefix); ok && strings.HasPrefix(rest, OperatorPrefix) {
			over[rest] = v
		}
	}
	if len(over) == 0 {
		return st.opts, nil
	}
	return st.opts.With(over)
}

// Reload reads path again and, when its content changed and is valid, takes it. It reports
// whether the options changed, and Check's warnings for the new content; a file that does
// not read or parse is an error, and the options in force stay.
func (l *Live) Reload(path string) (bool, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, nil, fmt.Errorf("operator options: %w", err)
	}
	if bytes.Equal(data, l.p.Load().data) {
		return false, nil, nil
	}
	st, err := parse(data)
	if err != nil {
		return false, nil, fmt.Errorf("operator options %s: %w", path, err)
	}
	if f := l.constrain.Load(); f != nil {
		st.opts = (*f)(st.opts)
	}
	l.p.Store(st)
	return true, Check(st.flat), nil
}

// Watch reloads path every interval until ctx ends (the Apache operator's dynamic
// configuration: a ConfigMap mounted as a file, which the kubelet rewrites when the ConfigMap
// changes). What it finds is logged: the options reloaded, each warning, an error.
func (l *Live) Watch(ctx context.Context, path string, interval time.Duration, clk clock.WithTicker, log logr.Logger) {
	t := clk.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		changed, warnings, err := l.Reload(path)
		switch {
		case err != nil:
			log.Error(err, "operator options not reloaded; the ones in force stay")
		case changed:
			log.Info("operator options reloaded", "file", path)
			for _, w := range warnings {
				log.Info("Warning: "+w, "file", path)
			}
		}
	}
}

// DynamicConfig reads KeyDynamicConfig and KeyDynamicConfigInterval from the operator's flat
// options: whether to watch the file, and how often (at least MinDynamicConfigInterval).
func DynamicConfig(flat map[string]string) (bool, time.Duration, error) {
	on, interval := true, DefaultDynamicConfigInterval
	if v, ok := flat[KeyDynamicConfig]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
		case "false":
			on = false
		default:
			return false, 0, fmt.Errorf("%s: %q is not true or false", KeyDynamicConfig, v)
		}
	}
	if v, ok := flat[KeyDynamicConfigInterval]; ok {
		d, err := ParseDuration(v)
		if err != nil {
			return false, 0, fmt.Errorf("%s: %w", KeyDynamicConfigInterval, err)
		}
		if d < MinDynamicConfigInterval {
			return false, 0, fmt.Errorf("%s: %s is shorter than %s", KeyDynamicConfigInterval, d, MinDynamicConfigInterval)
		}
		interval = d
	}
	return on, interval, nil
}
