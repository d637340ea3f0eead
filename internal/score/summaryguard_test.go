package score

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/unicode"
)

// TestHoldsRecords: the --summary guard tells a file of records as qa-load and qa-score read one,
// gzip-compressed or in UTF-16 with its byte order mark too, from a summary or an empty file.
func TestHoldsRecords(t *testing.T) {
	const rec = `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y"}}` + "\n"
	gz := func(s []byte) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(s)
		w.Close()
		return b.Bytes()
	}
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(rec))
	if err != nil {
		t.Fatal(err)
	}
	summary := []byte("{\n  \"records\": 1,\n  \"scored\": 1\n}\n")
	tests := []struct {
		name string
		data []byte
		want bool
	}{
		{"records", []byte(rec), true},
		{"records with a BOM", append([]byte("\ufeff"), rec...), true},
		{"array of records", []byte("[" + rec + "]"), true},
		{"a record longer than 64 kB", []byte(`{"schema":1,"id":"a","question":"` + strings.Repeat("q", 1<<17) + `"}` + "\n" + rec), true},
		{"gzip records", gz([]byte(rec)), true},
		{"UTF-16 records", utf16, true},
		{"gzip UTF-16 records", gz(utf16), true},
		{"summary", summary, false},
		{"gzip summary", gz(summary), false},
		{"empty", nil, false},
		{"csv summary", []byte("group,metric,mean\noverall,em,1\n"), false},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "s")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := holdsRecords(path); got != tt.want {
				t.Errorf("holdsRecords = %v, want %v", got, tt.want)
			}
		})
	}
	if holdsRecords(dir) {
		t.Error("a folder holds records")
	}
}
