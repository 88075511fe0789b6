package rest

import (
	"net/http"

	"github.com/flinkop/flinkop/fakeflink"
)

// applicationRoutes serve Flink 2.x's application endpoints. In the fake every job is the one
// job of an application with the job's id; the application's status is its job's.
func (s *Server) applicationRoutes() {
	s.handle("GET /applications/overview", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		out := []map[string]any{}
		for _, j := range c.Jobs() {
			app := applicationSummary(c, j)
			app["jobs"] = map[string]int{string(j.Status): 1}
			out = append(out, app)
		}
		return http.StatusOK, map[string]any{"applications": out}, nil
	})
	s.handle("GET /applications/{applicationid}", withApplication(func(c *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		app := applicationSummary(c, j)
		app["jobs"] = []map[string]any{jobDetails(c, j)}
		timestamps := map[string]int64{}
		for st, t := range j.Timestamps {
			timestamps[string(st)] = t.UnixMilli()
		}
		app["timestamps"] = timestamps
		return http.StatusOK, app, nil
	}))
	s.handle("POST /applications/{applicationid}/cancel", withApplication(func(c *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		if err := c.CancelJob(j.ID); err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, map[string]any{}, nil
	}))
	s.handle("GET /applications/{applicationid}/exceptions", withApplication(func(_ *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		entries := []map[string]any{}
		for i := len(j.Exceptions) - 1; i >= 0; i-- {
			e := j.Exceptions[i]
			entries = append(entries, map[string]any{"exceptionName": e.Name, "stacktrace": e.StackTrace, "timestamp": e.Time.UnixMilli(), "jobId": j.ID})
		}
		return http.StatusOK, map[string]any{"exceptionHistory": map[string]any{"entries": entries}}, nil
	}))
	s.handle("GET /applications/{applicationid}/jobmanager/config", withApplication(func(c *fakeflink.Cluster, _ *fakeflink.Job, _ *http.Request) (int, any, error) {
		return http.StatusOK, configEntries(c), nil
	}))
	s.handle("POST /jars/{jarid}/run-application", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		req, err := runRequest(r, "JarRunApplicationRequestBody")
		if err != nil {
			return 0, nil, err
		}
		id, err := c.RunJar(r.PathValue("jarid"), req)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, map[string]string{"applicationid": id}, nil
	})
	s.handle("POST /jars/{jarid}/plan", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		req, err := runRequest(r, "JarPlanRequestBody")
		if err != nil {
			return 0, nil, err
		}
		plan, err := c.PlanJar(r.PathValue("jarid"), req)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"plan": jobPlan(plan)}, nil
	})
}

func withApplication(h func(c *fakeflink.Cluster, j *fakeflink.Job, r *http.Request) (int, any, error)) handlerFunc {
	return func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		id := r.PathValue("applicationid")
		j, err := c.Job(id)
		if err != nil {
			return 0, nil, &fakeflink.Error{Kind: fakeflink.KindNotFound, Msg: "Application " + id + " not found"}
		}
		return h(c, j, r)
	}
}

func applicationSummary(c *fakeflink.Cluster, j *fakeflink.Job) map[string]any {
	return map[string]any{
		"id": j.ID, "name": j.Program.Name, "status": string(j.Status), "start-time": j.StartTime.UnixMilli(),
		"end-time": endMillis(j), "duration": duration(c, j),
	}
}
