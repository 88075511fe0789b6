package harness

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// chromium finds Debian's chromium (FLINKOP_CHROMIUM overrides). CI installs it (.ci/run) and
// fails without it; elsewhere the browser test is skipped.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FLINKOP_CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs Debian's chromium for this test")
		}
		t.Skip("chromium is not installed (apt-get install chromium); CI runs this test")
	}
	return p
}

// screenshot renders an HTML page in headless chromium and returns the PNG it took.
func screenshot(t *testing.T, browser string, page []byte) image.Image {
	t.Helper()
	dir := t.TempDir()
	file, shot := filepath.Join(dir, "timeline.html"), filepath.Join(dir, "timeline.png")
	if err := os.WriteFile(file, page, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// The flags keep chromium off the network this machine does not have.
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1280,900", "--hide-scrollbars",
		"--screenshot="+shot, "file://"+file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img
}

// pixels counts the pixels of an image within a small distance of a colour given as #rrggbb.
func pixels(img image.Image, hex string) int {
	var want color.RGBA
	if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &want.R, &want.G, &want.B); err != nil {
		return -1
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, want.R) && near(g>>8, want.G) && near(bl>>8, want.B) {
				n++
			}
		}
	}
	return n
}

func near(a uint32, b uint8) bool { return a+6 >= uint32(b) && a <= uint32(b)+6 }

// TestTimelineInBrowser renders the timeline in a real headless browser: the SVG draws (its
// state bands fill the page with their colours), and a violation shows as a red line that is
// not there when the same run has none.
func TestTimelineInBrowser(t *testing.T) {
	browser := chromium(t)
	render := func(tr *Trace) image.Image {
		var buf bytes.Buffer
		if err := tr.WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		return screenshot(t, browser, buf.Bytes())
	}
	with, without := render(sampleTrace(true)), render(sampleTrace(false))
	noSavepoint := sampleTrace(false)
	noSavepoint.Marks = slices.DeleteFunc(noSavepoint.Marks, func(m Mark) bool { return m.Kind == MarkSavepoint })
	if n := pixels(without, stateColors["RUNNING"]); n < 5000 {
		t.Errorf("%d pixels of RUNNING's green: the state bands did not draw", n)
	}
	// The legend shows each colour too: what a mark adds is the difference.
	if blue, base := pixels(without, string(colorSavepoint)), pixels(render(noSavepoint), string(colorSavepoint)); blue-base < 20 {
		t.Errorf("the savepoint mark adds %d blue pixels (%d with, %d without): it is not visible", blue-base, blue, base)
	}
	red, base := pixels(with, string(colorViolation)), pixels(without, string(colorViolation))
	if red-base < 100 {
		t.Errorf("the violation adds %d red pixels (%d with, %d without): it is not visible", red-base, red, base)
	}
}
