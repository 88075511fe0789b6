package flink

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"path"
)

// Jar is an uploaded jar.
type Jar struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Uploaded int64  `json:"uploaded"`
}

// RunJarRequest is POST /jars/:jarid/run.
type RunJarRequest struct {
	EntryClass  string   `json:"entryClass,omitempty"`
	Args        []string `json:"programArgsList,omitempty"`
	Parallelism int32    `json:"parallelism,omitempty"`
	// JobID fixes the job's id, so a repeated submission is recognised (409) instead of
	// starting a second job.
	JobID                 string `json:"jobId,omitempty"`
	AllowNonRestoredState bool   `json:"allowNonRestoredState,omitempty"`
	SavepointPath         string `json:"savepointPath,omitempty"`
	// ClaimMode is CLAIM or NO_CLAIM (Flink ≥ 1.19).
	ClaimMode string `json:"claimMode,omitempty"`
	// FlinkConfiguration is job-level configuration (Flink ≥ 1.17).
	FlinkConfiguration map[string]string `json:"flinkConfiguration,omitempty"`
}

// UploadJar uploads a jar of size bytes (multipart field "jarfile") and returns its id. The
// jar is streamed, never held in memory, with its exact Content-Length.
func (c *Client) UploadJar(ctx context.Context, name string, jar io.Reader, size int64) (string, error) {
	var head, tail bytes.Buffer
	mw := multipart.NewWriter(&head)
	if _, err := mw.CreateFormFile("jarfile", name); err != nil {
		return "", err
	}
	prefix := bytes.Clone(head.Bytes())
	head.Reset()
	if err := mw.Close(); err != nil {
		return "", err
	}
	tail.Write(head.Bytes())
	body := sizedBody{
		Reader: io.MultiReader(bytes.NewReader(prefix), io.LimitReader(jar, size), &tail),
		size:   int64(len(prefix)) + size + int64(tail.Len()),
	}
	var out struct {
		Filename string `json:"filename"`
		Status   string `json:"status"`
	}
	if err := c.send(ctx, c.timeout, http.MethodPost, "/jars/upload", body, mw.FormDataContentType(), &out); err != nil {
		return "", err
	}
	// The jar is the basename of the stored file.
	return path.Base(out.Filename), nil
}

// uploadRate is the slowest upload speed a jar upload is given time for (bytes a second).
const uploadRate = 1 << 20

// sizedBody is a request body of known length (sent with Content-Length, not chunked).
type sizedBody struct {
	io.Reader
	size int64
}

// ListJars lists the uploaded jars.
func (c *Client) ListJars(ctx context.Context) ([]Jar, error) {
	var out struct {
		Files []Jar `json:"files"`
	}
	if err := c.call(ctx, http.MethodGet, "/jars", nil, &out); err != nil {
		return nil, err
	}
	return out.Files, nil
}

// RunJar submits a job from an uploaded jar and returns the job id, within the submit timeout.
func (c *Client) RunJar(ctx context.Context, jarID string, req RunJarRequest) (string, error) {
	var out struct {
		JobID string `json:"jobid"`
	}
	if err := c.callWithin(ctx, c.submitTimeout, http.MethodPost, "/jars/"+escape(jarID)+"/run", req, &out); err != nil {
		return "", err
	}
	return out.JobID, nil
}

// DeleteJar deletes an uploaded jar.
func (c *Client) DeleteJar(ctx context.Context, jarID string) error {
	return c.call(ctx, http.MethodDelete, "/jars/"+escape(jarID), nil, nil)
}
