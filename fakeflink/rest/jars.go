package rest

import (
	"io"
	"net/http"
	"strconv"

	"github.com/flinkop/flinkop/fakeflink"
)

// maxJarSize bounds an upload, as Flink's rest.server.max-content-length does.
const maxJarSize = 100 << 20

func (s *Server) jarRoutes() {
	s.handle("GET /jars", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		files := []map[string]any{}
		for _, jar := range c.Jars() {
			files = append(files, map[string]any{
				"id": jar.ID, "name": jar.Name, "uploaded": jar.Uploaded.UnixMilli(),
				"entry": []map[string]string{{"name": "org.apache.flink.fake.FakeJob", "description": "No description provided"}},
			})
		}
		return http.StatusOK, map[string]any{"address": "http://" + r.Host, "files": files}, nil
	})
	s.handle("POST /jars/upload", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		if err := r.ParseMultipartForm(maxJarSize); err != nil {
			return 0, nil, badRequest("multipart/form-data", err)
		}
		files := r.MultipartForm.File["jarfile"]
		if n := len(r.MultipartForm.File); n != 1 || len(files) != 1 {
			return 0, nil, &fakeflink.Error{Kind: fakeflink.KindBadRequest, Msg: "Exactly 1 file must be sent, received " + strconv.Itoa(max(n, len(files))) + "."}
		}
		f, err := files[0].Open()
		if err != nil {
			return 0, nil, err
		}
		defer func() { _ = f.Close() }()
		data, err := io.ReadAll(f)
		if err != nil {
			return 0, nil, err
		}
		jar, err := c.UploadJar(files[0].Filename, data)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]string{"filename": "/tmp/flink-web-upload/" + jar.ID, "status": "success"}, nil
	})
	s.handle("DELETE /jars/{jarid}", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		if err := c.DeleteJar(r.PathValue("jarid")); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{}, nil
	})
	s.handle("POST /jars/{jarid}/run", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		req, err := runRequest(r, "JarRunRequestBody")
		if err != nil {
			return 0, nil, err
		}
		id, err := c.RunJar(r.PathValue("jarid"), req)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]string{"jobid": id}, nil
	})
}

// runRequest reads a jar run request: the JSON body, with the deprecated query parameters
// filling what the body leaves out.
func runRequest(r *http.Request, bodyClass string) (fakeflink.RunRequest, error) {
	var body struct {
		EntryClass            string            `json:"entryClass"`
		ProgramArgsList       []string          `json:"programArgsList"`
		Parallelism           int               `json:"parallelism"`
		JobID                 string            `json:"jobId"`
		AllowNonRestoredState bool              `json:"allowNonRestoredState"`
		SavepointPath         string            `json:"savepointPath"`
		FlinkConfiguration    map[string]string `json:"flinkConfiguration"`
	}
	if err := decodeBody(r, bodyClass, &body); err != nil {
		return fakeflink.RunRequest{}, err
	}
	q := r.URL.Query()
	if body.EntryClass == "" {
		body.EntryClass = q.Get("entry-class")
	}
	if body.SavepointPath == "" {
		body.SavepointPath = q.Get("savepointPath")
	}
	if body.Parallelism == 0 && q.Get("parallelism") != "" {
		body.Parallelism, _ = strconv.Atoi(q.Get("parallelism"))
	}
	if len(body.ProgramArgsList) == 0 {
		body.ProgramArgsList = q["programArg"]
	}
	return fakeflink.RunRequest{
		EntryClass: body.EntryClass, Args: body.ProgramArgsList, Parallelism: body.Parallelism,
		JobID: body.JobID, AllowNonRestoredState: body.AllowNonRestoredState || q.Get("allowNonRestoredState") == "true",
		SavepointPath: body.SavepointPath, Config: body.FlinkConfiguration,
	}, nil
}
