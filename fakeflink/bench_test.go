package fakeflink

import (
	"math/rand"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// BenchmarkSimulation measures how fast the core simulates: each iteration advances a session
// cluster running 50 checkpointing jobs by one virtual second. The job-seconds/s metric is
// jobs × virtual seconds simulated per wall-clock second.
func BenchmarkSimulation(b *testing.B) {
	const jobs = 50
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c, err := NewCluster(ClusterSpec{ID: "bench", Config: map[string]string{
		"taskmanager.numberOfTaskSlots": "4", "execution.checkpointing.interval": "5s",
		"state.checkpoints.dir": "file:///cp", "high-availability.type": "kubernetes",
	}}, Options{Clock: clk, Rand: rand.New(rand.NewSource(1))})
	if err != nil {
		b.Fatal(err)
	}
	for i := range jobs {
		c.RegisterTaskManager("tm-"+string(rune('a'+i%26))+string(rune('a'+i/26)), 4)
	}
	_ = c.StartJobManager()
	jar, _ := c.UploadJar("bench.jar", nil)
	for range jobs {
		if _, err := c.RunJar(jar.ID, RunRequest{Parallelism: 2}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		clk.Step(time.Second)
		c.Tick()
	}
	b.ReportMetric(float64(jobs*b.N)/b.Elapsed().Seconds(), "job-seconds/s")
	running := 0
	for _, j := range c.Jobs() {
		if j.Status == StatusRunning {
			running++
		}
	}
	if running != jobs {
		b.Fatalf("%d of %d jobs running", running, jobs)
	}
}
