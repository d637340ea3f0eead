package record_test

import (
	"fmt"
	"os"

	"github.com/qapipe/qapipe/pkg/record"
)

// Write fills in the schema version; the lines reach the underlying writer at Flush (or when the
// 64 kB buffer fills).
func ExampleWriter() {
	w := record.NewWriter(os.Stdout)
	rec := &record.Record{ID: "q1", Question: "Who?", Answers: []string{"Ann"}}
	if err := w.Write(rec); err != nil {
		fmt.Println(err)
	}
	if err := w.Flush(); err != nil {
		fmt.Println("flush:", err)
	}
	// Output:
	// {"schema":1,"id":"q1","question":"Who?","answers":["Ann"]}
}

// A Writer keeps its first error and returns it from every later call: the record without an
// id stops the stream, and not even the line buffered before it is written, since a stream
// missing a record is no stream to go on with.
func ExampleWriter_error() {
	w := record.NewWriter(os.Stdout)
	w.Write(&record.Record{ID: "q1", Question: "Who?", Answers: []string{"Ann"}})
	fmt.Println(w.Write(&record.Record{Question: "Where?"}))
	fmt.Println(w.Write(&record.Record{ID: "q3", Question: "When?"}))
	fmt.Println(w.Flush())
	// Output:
	// record: missing field "id"
	// record: missing field "id"
	// record: missing field "id"
}
