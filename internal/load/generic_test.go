package load

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// loadString runs load over in (named name) with the mapping m and returns the ids of the records,
// the bad items' messages and the loader's error.
// loadInOrder runs load over in (named name) with the mapping m and returns, in the order they
// come, the records as JSON and the bad items' messages.
func loadInOrder(load Loader, name, in string, m Mapping) ([]string, error) {
	var got []string
	err := load(Input{Name: name, R: strings.NewReader(in)}, Options{Map: m}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			got = append(got, bad.Error())
			return nil
		}
		b, err := json.Marshal(r)
		got = append(got, string(b))
		return err
	})
	return got, err
}

func loadString(t *testing.T, load Loader, name, in string, opt Options) (ids, bads []string, err error) {
	t.Helper()
	err = load(Input{Name: name, R: strings.NewReader(in)}, opt, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			bads = append(bads, bad.Error())
			return nil
		}
		ids = append(ids, r.ID)
		return nil
	})
	return ids, bads, err
}

func TestCSVHeader(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     string // the loader's error, "" for none
	}{
		{"ok", "id,question,answers\n1,q,a\n", ""},
		{"repeated answers", "id,question,answers,answers\n1,q,a,b\n",
			`d.csv:1: column "answers" is named twice in the header (fields 3 and 4)`},
		{"repeated meta", "id,question,note,x,note\n1,q,a,b,c\n",
			`d.csv:1: column "note" is named twice in the header (fields 3 and 5)`},
		{"repeated empty", "id,,question,,answers\n1,x,q,y,a\n",
			"d.csv:1: fields 2 and 4 of the header have no name"},
		{"not text", "id,question,\xff\n1,q,a\n", "d.csv:1: header field 3: "},
		{"CRLF", "id,question,answers\r\n1,q,a\r\n", ""},
		{"CR", "id,question,answers\r1,q,a\r",
			`d.csv:1: the file has CR line endings (a carriage return with no line feed after it, at column 20): convert them to LF with tr '\r' '\n'`},
		{"CR, quoted", `"id","question","answers"` + "\r" + `"1","q","a"`,
			`d.csv:1: the file has CR line endings (a carriage return with no line feed after it, at column 26)`},
		{"CR in a quoted cell", "id,question,answers\n1,\"q\rr\",a\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, CSV, "d.csv", tt.in, Options{})
			if tt.want == "" {
				if err != nil || len(ids) != 1 || len(bads) != 0 {
					t.Errorf("CSV(%q) = ids %q, bad %q, %v; want one record", tt.in, ids, bads, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || len(ids) != 0 {
				t.Errorf("CSV(%q) = ids %q, %v; want no record and error %q", tt.in, ids, err, tt.want)
			}
		})
	}
}

// TestCSVHeaderMapQuestion: a header without the column of --map's question source fails the
// file at line 1, as every row would be bad for it; a source of a field a row may lack (id,
// answers, type, ...) does not, its rows loading without it, nor does the question's default
// column, or a question that --map gives no source, which stay each row's fault.
func TestCSVHeaderMapQuestion(t *testing.T) {
	const qestion = `d.csv:1: --map question=qestion: the header has no column "qestion", so no row has a question`
	for _, tt := range []struct {
		name, file, m, in string
		want              string // the loader's error, "" for none
		ids, bads         int
	}{
		{"present", "d.csv", "question=q", "id,q\n1,Q?\n", "", 1, 0},
		{"missing", "d.csv", "question=qestion", "id,question\n1,Q?\n2,R?\n",
			qestion + ` (its columns: id, question; did you mean "question"?)`, 0, 0},
		{"missing, header alone", "d.csv", "question=qestion", "id,question\n",
			qestion + ` (its columns: id, question; did you mean "question"?)`, 0, 0},
		{"missing, tsv", "d.tsv", "question=q", "id\tquestion\n1\tQ?\n",
			`d.tsv:1: --map question=q: the header has no column "q", so no row has a question (its columns: id, question)`, 0, 0},
		{"missing, no name near", "d.csv", "question=text", "id,q\n1,Q?\n",
			`d.csv:1: --map question=text: the header has no column "text", so no row has a question (its columns: id, q)`, 0, 0},
		{"missing, many columns", "d.csv", "question=qestion", "a,b,c,d,e,f,g,h,i,j\n1,2,3,4,5,6,7,8,9,10\n",
			qestion + ` (its columns: a, b, c, d, e, f, g, h, and 2 more)`, 0, 0},
		{"path names its column", "d.csv", "question=a.b", "id,a.b\n1,Q?\n", "", 1, 0},
		{"escaped dot names the same column", "d.csv", `question=a\.b`, "id,a.b\n1,Q?\n", "", 1, 0},
		{"index names its column", "d.csv", "question=r[0]", "id,r[0]\n1,Q?\n", "", 1, 0},
		{"escaped bracket names the same column", "d.csv", `question=r\[0]`, "id,r[0]\n1,Q?\n", "", 1, 0},
		{"path missing", "d.csv", "question=a.b", "id,a\n1,Q?\n",
			`d.csv:1: --map question=a.b: the header has no column "a.b", so no row has a question (its columns: id, a)`, 0, 0},
		{"optional fields missing", "d.csv",
			"question=q,id=qid,answers=gold,context=ctx,type=kind,rubric=rb,lang=lg,dataset=ds,split=sp," +
				"prediction=p,prediction_model=pm,prediction_score=ps,prediction_supporting_facts=pf",
			"id,q\n1,Q?\n", "", 1, 0},
		{"default question column missing", "d.csv", "answers=gold", "id,q,gold\n1,Q?,A\n",
			`d.csv:1: the header has no column "question", so no row has a question (its columns: id, q, gold); give --map question=COLUMN to name the question's column`, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMap(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			ids, bads, err := loadString(t, CSV, tt.file, tt.in, Options{Map: m})
			if tt.want != "" {
				if err == nil || err.Error() != tt.want || len(ids)+len(bads) != 0 {
					t.Errorf("CSV(%q) with --map %s = ids %q, bad %q, %v\nwant no item and error %q", tt.in, tt.m, ids, bads, err, tt.want)
				}
				return
			}
			if err != nil || len(ids) != tt.ids || len(bads) != tt.bads {
				t.Errorf("CSV(%q) with --map %s = ids %q, bad %q, %v; want %d records, %d bad", tt.in, tt.m, ids, bads, err, tt.ids, tt.bads)
			}
		})
	}
}

// TestCSVUnnamedTrailingColumns: the columns after the last named one in the header, as Excel
// writes a header line (and rows) with a trailing delimiter, are no data: their cells, empty,
// blank or missing, are ignored; one that holds text makes the row bad, as it has no name. An
// unnamed column before a named one stays a column, its cells in meta under "".
func TestCSVUnnamedTrailingColumns(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"excel", "id,question,answers,\r\nq1,What?,four,\r\nq2,Who?,five,\r\n", []string{
			`{"schema":1,"id":"q1","question":"What?","answers":["four"]}`,
			`{"schema":1,"id":"q2","question":"Who?","answers":["five"]}`}},
		{"two, blank or missing cells", "id,question,answers,,\nq1,What?,four, ,\nq2,Who?,five\nq3,Why?,six,\n", []string{
			`{"schema":1,"id":"q1","question":"What?","answers":["four"]}`,
			`{"schema":1,"id":"q2","question":"Who?","answers":["five"]}`,
			`{"schema":1,"id":"q3","question":"Why?","answers":["six"]}`}},
		{"text in one", "id,question,answers,,\nq1,What?,four,,note\nq2,Who?,five,,\n", []string{
			`d.csv:2 (id "q1"): field 5 has no name in the header, but this row has "note" there (name the column, or remove its cells)`,
			`{"schema":1,"id":"q2","question":"Who?","answers":["five"]}`}},
		{"text in the first", "id,question,answers,,\nq1,What?,four,note,\n", []string{
			`d.csv:2 (id "q1"): field 4 has no name in the header, but this row has "note" there (name the column, or remove its cells)`}},
		{"more cells than the header", "id,question,answers,\nq1,What?,four,,\n", []string{
			`d.csv:2 (id "q1"): 5 fields, header has 4 (split at commas)`}},
		{"fewer cells than the named", "id,question,answers,\nq1,What?\n", []string{
			`d.csv:2 (id "q1"): 2 fields, header has 4 (split at commas)`}},
		{"header again", "id,question,answers,\nq1,What?,four,\nid,question,answers,\n", []string{
			`{"schema":1,"id":"q1","question":"What?","answers":["four"]}`,
			`d.csv:3: the header again, not a row (files joined with cat? give each file as an argument)`}},
		{"unnamed in the middle", "id,,question,answers,\nq1,x,What?,four,\n", []string{
			`{"schema":1,"id":"q1","question":"What?","answers":["four"],"meta":{"":"x"}}`}},
		{"a named empty column", "id,question,answers,note\nq1,What?,four,\n", []string{
			`{"schema":1,"id":"q1","question":"What?","answers":["four"],"meta":{"note":""}}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadInOrder(CSV, "d.csv", tt.in, Mapping{"id": "id"})
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("CSV(%q) = %v\n%s\nwant\n%s", tt.in, err, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A CSV header that names no column at all fails the file: it is kept whole for checkHeader,
// not cut to nothing as the unnamed columns after the last named one are.
func TestCSVHeaderWithoutNames(t *testing.T) {
	for _, in := range []string{",\nq,a\n", ",,\nq,a,b\n"} {
		_, err := loadInOrder(CSV, "d.csv", in, Mapping{})
		if want := "d.csv:1: fields 1 and 2 of the header have no name"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("CSV(%q) = %v, want an error beginning %q", in, err, want)
		}
	}
}

// A line of spaces and tabs in a CSV file is a blank line, skipped as an empty one is (and as
// JSON Lines and pandas skip it); a row of empty cells is a row, and so is a line of other white
// space, which pandas reads as a row too.
func TestCSVBlankLines(t *testing.T) {
	in := "id,question,answers\n1,q,a\n   \n\t\n\n2,q,b\n,,\n \t \n\f\n\u00a0\n"
	ids, bads, err := loadString(t, CSV, "d.csv", in, Options{})
	want := `d.csv:7 (id "d.csv:7"): field "question" is empty` + "\n" +
		`d.csv:9 (id "\f"): 1 field, header has 3 (split at commas)` + "\n" +
		`d.csv:10 (id "\u00a0"): 1 field, header has 3 (split at commas)`
	if err != nil || strings.Join(ids, ",") != "1,2" || strings.Join(bads, "\n") != want {
		t.Errorf("CSV(%q) = ids %q, bad %q, %v; want 1,2 and bad lines:\n%s", in, ids, bads, err, want)
	}
}

// A generic row without an id is named by its place: FILE:LINE, and FILE:LINE:COLUMN for an item
// of a JSON array that starts on the line where the item before it ends, so that the items of an
// array written on one line get ids of their own.
func TestGenericDefaultIDs(t *testing.T) {
	m := Mapping{"question": "q"}
	for _, tt := range []struct{ name, in, want string }{
		{"jsonl", "{\"q\": \"a\"}\n\n{\"q\": \"b\"}\n", "d.json:1,d.json:3"},
		{"one-line array", `[{"q": "a"}, {"q": "b"},{"q": "c"}]`, "d.json:1,d.json:1:14,d.json:1:25"},
		{"indented array", "[\n  {\"q\": \"a\"},\n  {\n    \"q\": \"b\"\n  }, {\"q\": \"c\"}\n]\n", "d.json:2,d.json:3,d.json:5:6"},
		{"first item beside the bracket", "[{\"q\": \"a\"},\n {\"q\": \"b\"}]", "d.json:1,d.json:2"},
		{"indented objects", "{\n  \"q\": \"a\"\n} {\"q\": \"b\"}\n{\"q\": \"c\"}\n", "d.json:1,d.json:3:3,d.json:4"},
	} {
		ids, bads, err := loadString(t, JSONL, "d.json", tt.in, Options{Map: m})
		if err != nil || len(bads) > 0 || strings.Join(ids, ",") != tt.want {
			t.Errorf("%s: ids %q, bad %q, %v; want %s", tt.name, ids, bads, err, tt.want)
		}
	}
}

func TestJSONLRepeatedKey(t *testing.T) {
	m := Mapping{"question": "q"}
	for _, tt := range []struct {
		name, in string
		ids      []string
		bads     []string
	}{
		{"none", `{"id":"1","q":"x","answers":["a","b"]}`, []string{"1"}, nil},
		{"answers", `{"id":"1","q":"x","answers":"a","answers":"b"}`, nil,
			[]string{`j.jsonl:1 (id "1"): field "answers" is given twice`}},
		{"mapped question", `{"id":"1","q":"x","q":"y"}`, nil, []string{`j.jsonl:1 (id "1"): field "q" is given twice`}},
		{"meta", `{"id":"1","q":"x","note":1,"note":2}`, nil, []string{`j.jsonl:1 (id "1"): field "note" is given twice`}},
		{"id", `{"id":"1","q":"x","id":"2"}`, nil, []string{`j.jsonl:1: field "id" is given twice`}},
		{"two repeated: the first repeat named", `{"id":"1","q":"x","note":1,"tag":1,"tag":2,"note":2}`, nil,
			[]string{`j.jsonl:1 (id "1"): field "tag" is given twice`}},
		{"nested kept", `{"id":"1","q":"x","src":{"a":1,"a":2}}`, []string{"1"}, nil},
		{"array", `[{"id":"1","q":"x"},` + "\n" + `{"id":"2","q":"x","q":"y"}]`, []string{"1"},
			[]string{`j.jsonl:2 (id "2"): field "q" is given twice`}},
		{"not an object", `{"id":"1","q":"x"}` + "\n" + `["q"]`, []string{"1"}, []string{"j.jsonl:2: want an object, got a list"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, JSONL, "j.jsonl", tt.in, Options{Map: m})
			if err != nil || !slices.Equal(ids, tt.ids) || !slices.Equal(bads, tt.bads) {
				t.Errorf("JSONL(%s) = ids %q, bad %q, %v; want %q, %q", tt.in, ids, bads, err, tt.ids, tt.bads)
			}
		})
	}
}

// FuzzMembers checks members against json.Unmarshal: the same members for every valid object
// (the last value of a repeated key), a repeated key only when the object has fewer members than
// keys, and false for anything else.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,{"c":2}]}`, `{"a":1,"a":2}`, `{}`, `[1]`, `null`, `"x"`, `{"a":{"b":1,"b":2}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got, repeated, ok := members(raw)
		var want map[string]json.RawMessage
		isObject := json.Unmarshal(raw, &want) == nil && want != nil
		if ok != isObject {
			t.Fatalf("members(%s) ok = %v, want %v", raw, ok, isObject)
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("members(%s) = %d members, want %d", raw, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Errorf("members(%s)[%q] = %s, want %s", raw, k, got[k], v)
			}
		}
		if repeated != "" && got[repeated] == nil {
			t.Errorf("members(%s) repeated %q, not a key", raw, repeated)
		}
	})
}

func TestGenericEmptyQuestion(t *testing.T) {
	for _, tt := range []struct {
		name string
		load Loader
		in   string
		ids  []string
		bads []string
	}{
		{"csv empty", CSV, "id,q,answers\n1,,Paris\n2,Where?,Rome\n", []string{"2"}, []string{`g:2 (id "1"): field "q" is empty`}},
		{"csv blank", CSV, "id,q,answers\n1, \t,Paris\n", nil, []string{`g:2 (id "1"): field "q" is empty`}},
		{"csv default id", CSV, "q,answers\n,Paris\n", nil, []string{`g:2 (id "g:2"): field "q" is empty`}},
		{"jsonl empty", JSONL, `{"id":"1","q":"","answers":"a"}`, nil, []string{`g:1 (id "1"): field "q" is empty`}},
		{"jsonl ideographic space", JSONL, `{"id":"1","q":"\u3000\n"}`, nil, []string{`g:1 (id "1"): field "q" is empty`}},
		{"csv python blank", CSV, "id,q,answers\n1,\x1c\x1f ,Paris\n", nil, []string{`g:2 (id "1"): field "q" is empty`}},
		{"jsonl python blank", JSONL, `{"id":"1","q":"\u001c\u001f "}`, nil, []string{`g:1 (id "1"): field "q" is empty`}},
		{"jsonl one character", JSONL, `{"id":"1","q":"?"}`, []string{"1"}, nil},
		{"jsonl one character in separators", JSONL, `{"id":"1","q":"\u001e?\u001c"}`, []string{"1"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, tt.load, "g", tt.in, Options{Map: Mapping{"question": "q"}})
			if err != nil || !slices.Equal(ids, tt.ids) || !slices.Equal(bads, tt.bads) {
				t.Errorf("load(%q) = ids %q, bad %q, %v; want %q, %q", tt.in, ids, bads, err, tt.ids, tt.bads)
			}
		})
	}
}

// TestMapFound: Found is called for each item whose fields were read, and says which --map
// sources some item has; an input none of whose items could be read calls it not at all, so
// that no source is taken for misspelt.
func TestMapFound(t *testing.T) {
	m := Mapping{"question": "q", "type": "categ", "answers": "gold"}
	for _, tt := range []struct {
		name    string
		load    Loader
		in      string
		unfound []string
		read    bool // some item's fields were read
	}{
		{"jsonl", JSONL, `{"id":"1","q":"x","gold":"a"}` + "\n" + `{"id":"2","q":"y","category":"c"}`, []string{"type"}, true},
		{"jsonl null", JSONL, `{"id":"1","q":"x","categ":null}`, []string{"answers"}, true},
		{"jsonl bad item", JSONL, `{"id":"1","q":"","gold":"a","categ":"c"}`, nil, true},
		{"jsonl not UTF-8", JSONL, "{\"id\":\"1\",\"q\":\"caf\xe9\",\"gold\":\"a\",\"categ\":\"c\"}\n", []string{"question", "answers", "type"}, false},
		{"jsonl not an object", JSONL, `["q","gold"]`, []string{"question", "answers", "type"}, false},
		{"csv header", CSV, "id,q,categ\n", []string{"answers"}, true},
		{"csv", CSV, "id,q,gold\n1,x,a\n", []string{"type"}, true},
		{"empty", JSONL, "", []string{"question", "answers", "type"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			found, read := map[string]bool{}, false
			opt := Options{Map: m, Found: func(has func(string) bool) {
				read = true
				for _, src := range m {
					if has(src) {
						found[src] = true
					}
				}
			}}
			if _, _, err := loadString(t, tt.load, "g", tt.in, opt); err != nil {
				t.Fatal(err)
			}
			if got := m.unfound(found); !slices.Equal(got, tt.unfound) {
				t.Errorf("unfound after %q = %q, want %q", tt.in, got, tt.unfound)
			}
			if read != tt.read {
				t.Errorf("after %q: Found called: %v, want %v", tt.in, read, tt.read)
			}
		})
	}
}

func TestSniffDelimiter(t *testing.T) {
	for _, tt := range []struct {
		head string
		want rune
	}{
		{"id,question,answers\n1\t2\t3\t4\n", ','},
		{"id\tquestion\tanswers\r\n1,2,3,4,5\n", '\t'},
		{"id;question;answers\n", ';'},
		{"id\tquestion, in words\tanswers\n", '\t'},
		{"id,\"a\tb\tc\",answers\n", ','}, // a tab inside quotes is a name's
		{"\"multi\nline;;;\",x\n", ','},   // the line ends outside quotes
		{"question\n", ','},               // one column
		{"a,b\tc\n", ','},                 // a tie
		{"a;b\tc\n", '\t'},                // a tie without a comma
		{"a;b,c\n", ','},                  // a tie of semicolons and commas
		{"id\tquestion\tanswers", '\t'},   // no line end
		{"", ','},
	} {
		if got := sniffDelimiter([]byte(tt.head)); got != tt.want {
			t.Errorf("sniffDelimiter(%q) = %q, want %q", tt.head, got, tt.want)
		}
	}
}

// TestCSVCutShort checks that a CSV file whose last row is cut, inside a quoted cell or between
// cells with no line end after it, is a bad item that says the input may have been cut short, as a
// cut JSON Lines line is, and that rows like them with the whole file after them are not. Each
// names the row's id, read from the cells before the one at fault.
func TestCSVCutShort(t *testing.T) {
	const head = "id,question,answers\nq1,What?,a\n"
	const cut = "the input ends"
	for _, tt := range []struct {
		name, in string
		want     string // the bad item's message, or the part of it that matters
		isCut    bool   // whether the message says the input ends inside the row
	}{
		{"quoted cell, no line end", head + `q2,"Who is`, `d.csv:3 (id "q2"): the input ends inside a quoted cell of this row: was it cut short, or is the cell's closing " missing`, true},
		{"quoted cell, line end", head + "q2,\"Who is\n", `d.csv:3 (id "q2"): the input ends inside a quoted cell of this row`, true},
		{"quoted last cell", head + `q2,Who?,"an`, `d.csv:3 (id "q2"): the input ends inside a quoted cell`, true},
		{"quoted cell over lines", head + "q2,\"Who\nis\n\nit", `d.csv:3 (id "q2"): the input ends, at line 6, inside a quoted cell of this row`, true},
		{"quoted cell over lines, CRLF", head + "q2,\"Who\r\nis\r\n", `d.csv:3 (id "q2"): the input ends, at line 4, inside a quoted cell`, true},
		{"quote never closed", head + "q2,\"Who,b\nq3,Why,c\nq4,How,d\n", `d.csv:3 (id "q2"): the input ends, at line 5, inside a quoted cell`, true},
		{"too few fields, no line end", head + "q2,Who", `d.csv:3 (id "q2"): 2 fields, header has 3 (split at commas): the input ends inside this row, which has no line end`, true},
		{"too few fields, quoted, no line end", head + `q2,"Who"`, `d.csv:3 (id "q2"): 2 fields, header has 3 (split at commas): the input ends inside this row`, true},
		{"too few fields, line end", head + "q2,Who\n", `d.csv:3 (id "q2"): 2 fields, header has 3 (split at commas)`, false},
		{"too few fields, CRLF", head + "q2,Who\r\n", `d.csv:3 (id "q2"): 2 fields, header has 3 (split at commas)`, false},
		{"too few fields, not last", head + "q2,Who\n\n", `d.csv:3 (id "q2"): 2 fields, header has 3 (split at commas)`, false},
		{"too many fields, no line end", head + "q2,Who,b,c", `d.csv:3 (id "q2"): 4 fields, header has 3 (split at commas)`, false},
		{"extraneous quote, last line", head + `q2,"Who"x,b`, `d.csv:3 (id "q2"): extraneous or missing " in quoted-field at column 8`, false},
		{"extraneous quote, last line ended", head + "q2,\"Who\"x,b\n", `d.csv:3 (id "q2"): extraneous or missing " in quoted-field at column 8`, false},
		{"extraneous quote, last cell", head + `q2,Who,"b"x`, `d.csv:3 (id "q2"): extraneous or missing " in quoted-field at column 10`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, CSV, "d.csv", tt.in, Options{})
			if err != nil || !slices.Equal(ids, []string{"q1"}) || len(bads) != 1 {
				t.Fatalf("CSV(%q) = ids %q, bad %q, %v; want q1 and one bad item", tt.in, ids, bads, err)
			}
			if !strings.HasPrefix(bads[0], tt.want) || strings.Contains(bads[0], cut) != tt.isCut {
				t.Errorf("CSV(%q): bad item %q, want %q, saying %q: %v", tt.in, bads[0], tt.want, cut, tt.isCut)
			}
		})
	}
}

// A source that --map gives a record field is that field's alone, also when the source is named
// as another record field (type, id, answers): that field, unmapped, reads nothing, rather than
// the first of the two in mappable's order taking the source and the field named being left
// empty without a word.
func TestMapSourceNamedAsField(t *testing.T) {
	const row = `{"id":"7","question":"q","answers":"a","type":"dev","cat":"c"}`
	for _, tt := range []struct {
		name string
		m    Mapping
		want string // the record, as JSON, or the bad item
	}{
		{"split=type", Mapping{"split": "type"},
			`{"schema":1,"id":"7","split":"dev","question":"q","answers":["a"],"meta":{"cat":"c"}}`},
		{"dataset=type", Mapping{"dataset": "type", "type": "cat"},
			`{"schema":1,"id":"7","dataset":"dev","type":"c","question":"q","answers":["a"]}`},
		{"type=id", Mapping{"type": "id"},
			`{"schema":1,"id":"m.jsonl:1","type":"7","question":"q","answers":["a"],"meta":{"cat":"c","type":"dev"}}`},
		{"context=answers", Mapping{"context": "answers"},
			`{"schema":1,"id":"7","type":"dev","question":"q","answers":[],"context":[{"text":"a"}],"meta":{"cat":"c"}}`},
		{"swapped", Mapping{"type": "cat", "split": "type"},
			`{"schema":1,"id":"7","split":"dev","type":"c","question":"q","answers":["a"]}`},
		{"context=question", Mapping{"context": "question"},
			`m.jsonl:1 (id "7"): no field for the question: --map context=question makes field "question" the context; give --map question=FIELD`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadInOrder(JSONL, "m.jsonl", row, tt.m)
			if err != nil || len(got) != 1 || got[0] != tt.want {
				t.Errorf("JSONL(%s) with --map %v = %q, %v; want %s", row, tt.m, got, err, tt.want)
			}
		})
	}
}

// The fields a record without its question or answers has are listed with a name that is empty
// or has blanks at an end quoted: a header "id, question, answers" gives " question", which the
// list showed as "question", the field it said was missing. A CSV header says it once, for the
// file.
func TestFieldListBlanks(t *testing.T) {
	const mapIt = "; give --map question=COLUMN to name the question's column"
	for _, tt := range []struct{ name, in, want string }{
		{"question", "id, question, answers\n1, Why?, a\n",
			`d.csv:1: the header has no column "question", so no row has a question (its columns: id, " question", " answers"; did you mean " question"?)` + mapIt},
		{"byte order mark", "\ufeffid,q\n1,Why?\n",
			`d.csv:1: the header has no column "question", so no row has a question (its columns: "\ufeffid", q)` + mapIt},
		{"plain", "id,,q\n1,a,Why?\n",
			`d.csv:1: the header has no column "question", so no row has a question (its columns: id, "", q)` + mapIt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, bads, err := loadString(t, CSV, "d.csv", tt.in, Options{})
			if err == nil || err.Error() != tt.want || len(bads) != 0 {
				t.Errorf("CSV(%q) = bad %q, %v; want the error %s", tt.in, bads, err, tt.want)
			}
		})
	}
	{
		const in = `{"id": 1, " question": "Why?", "": 2}`
		_, bads, err := loadString(t, JSONL, "d.jsonl", in+"\n", Options{})
		want := `d.jsonl:1 (id "1"): missing field "question" (its fields: "", " question", id; if the question is under another name, give --map question=FIELD)`
		if err != nil || len(bads) != 1 || bads[0] != want {
			t.Errorf("JSONL(%s) = bad %q, %v; want %s", in, bads, err, want)
		}
	}
	var w strings.Builder
	c := genericCount{}
	c.add(&record.Record{ID: "1", Question: "Why?", Meta: map[string]json.RawMessage{" answers": []byte(`"a"`), "id": []byte(`"1"`)}}, Mapping{}, false)
	c.warn(&w, Mapping{}, "")
	want := `qa-load: warning: 1 of 1 jsonl/csv record has no answers (no field "answers", or an empty list); if they are under another name, give --map answers=FIELD (the other fields of record "1": " answers", id)` + "\n"
	if w.String() != want {
		t.Errorf("warning %q, want %q", w.String(), want)
	}
}

// A CSV row that repeats the header's names (a second file's header, as cat a.csv b.csv joins
// them, its byte order mark kept or not) is a bad item, not a question "question" whose answer is
// "answers"; a row that holds some of the names is a row.
func TestCSVRepeatedHeader(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		ids      string
		bads     []string
	}{
		{"cat", "id,question,answers\n1,q,a\nid,question,answers\n2,r,b\n", "1,2",
			[]string{"d.csv:3: the header again, not a row (files joined with cat? give each file as an argument)"}},
		{"cat, byte order mark", "id,question,answers\n1,q,a\n\ufeffid,question,answers\n2,r,b\n", "1,2",
			[]string{"d.csv:3: the header again, not a row (files joined with cat? give each file as an argument)"}},
		{"quoted", "id,question,answers\n\"id\",\"question\",\"answers\"\n", "",
			[]string{"d.csv:2: the header again, not a row (files joined with cat? give each file as an argument)"}},
		{"some names", "id,question,answers\nid,question,a\n", "id", nil},
		{"other order", "id,question,answers\nid,answers,question\n", "id", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, CSV, "d.csv", tt.in, Options{})
			if err != nil || strings.Join(ids, ",") != tt.ids || !slices.Equal(bads, tt.bads) {
				t.Errorf("CSV(%q) = ids %q, bad %q, %v; want %s, %q", tt.in, ids, bads, err, tt.ids, tt.bads)
			}
		})
	}
}

// A generic row whose id is absent, null or "" has no id and gets FILE:LINE, in JSONL and CSV
// alike: pandas writes a missing id as null in JSON and as an empty cell in CSV, so one table
// exported both ways loads the same.
func TestGenericNoID(t *testing.T) {
	for _, tt := range []struct {
		name string
		load Loader
		m    Mapping
		in   string
		want string
	}{
		{"jsonl absent", JSONL, nil, `{"question":"q"}`, "g:1"},
		{"jsonl null", JSONL, nil, `{"id":null,"question":"q"}`, "g:1"},
		{"jsonl empty", JSONL, nil, `{"id":"","question":"q"}`, "g:1"},
		{"jsonl mapped empty", JSONL, Mapping{"id": "qid"}, `{"qid":"","question":"q"}`, "g:1"},
		{"jsonl zero", JSONL, nil, `{"id":0,"question":"q"}`, "0"},
		{"jsonl blank", JSONL, nil, `{"id":" ","question":"q"}`, " "},
		{"csv no column", CSV, nil, "question\nq\n", "g:2"},
		{"csv empty cell", CSV, nil, "id,question\n,q\n", "g:2"},
		{"csv mapped empty cell", CSV, Mapping{"id": "qid"}, "qid,question\n,q\n", "g:2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, tt.load, "g", tt.in, Options{Map: tt.m})
			if err != nil || len(bads) > 0 || !slices.Equal(ids, []string{tt.want}) {
				t.Errorf("load(%q) = ids %q, bad %q, %v; want id %q", tt.in, ids, bads, err, tt.want)
			}
		})
	}
}

func TestAnswerLike(t *testing.T) {
	for _, tt := range []struct {
		fields []string
		want   string
	}{
		{nil, ""},
		{[]string{"context", "id"}, ""},
		{[]string{"answer"}, "answer"},
		{[]string{"Answer", "label"}, "Answer"},
		{[]string{"label", "ground_truth"}, "ground_truth"},
		{[]string{"gold", "target"}, "target"},
		{[]string{"answer_start", "answered"}, ""},
	} {
		if got := answerLike(tt.fields); got != tt.want {
			t.Errorf("answerLike(%q) = %q, want %q", tt.fields, got, tt.want)
		}
	}
}

// TestCSVAnswersCell: an answers cell that is a JSON list is read as JSON, its escapes JSON's
// ("\/" is "/", where Python's literal keeps the backslash); a bad cell of a row without an id
// column names the record by its default id, FILE:LINE, as the record would be named.
func TestCSVAnswersCell(t *testing.T) {
	const nestedWant = `want an answer or a list of them, got a list holding a list or a tuple, as pandas' to_csv writes a list of lists or of tuples; put one answer text in each item of the column's lists, or write a JSON list (["..."]) if this text is the answer`
	in := "question,answers\n" +
		`q1,"[""a\/b"", ""c""]"` + "\n" +
		`q2,"{'text': ['x'], 'answer_start': [3]}"` + "\n" +
		`q3,"['y', None]"` + "\n" +
		`q4,['Denver Broncos' nan]` + "\n" +
		`q5,['a' 'b' ... 'y' 'z']` + "\n" +
		`q6,[1989 1990]` + "\n" +
		`q7,[1.5 2. ]` + "\n" +
		`q8,[citation needed]` + "\n" +
		`q9,[1]` + "\n" +
		`q10,[...]` + "\n" +
		`q11,"[true, ""x"", 2]"` + "\n" +
		`q12,"[True, 'x']"` + "\n" +
		`q13,[ True False]` + "\n" +
		`q14,"('Denver Broncos', 'Denver')"` + "\n" +
		`q15,"('a',)"` + "\n" +
		`q16,"(1, 2)"` + "\n" +
		`q17,"('a', None)"` + "\n" +
		`q18,(see above)` + "\n" +
		`q19,"[['a', 'b'], 'c']"` + "\n" +
		`q20,"[[""a"", ""b""], ""c""]"` + "\n" +
		`q21,[[Paris]]` + "\n" +
		`q22,"[ [ 'a' ] ]"` + "\n" +
		`q23,"[('Denver Broncos', 177)]"` + "\n" +
		`q24,"('a', ('b', 'c'))"` + "\n" +
		`q25,"[np.str_('Denver Broncos'), np.str_('Denver')]"` + "\n" +
		`q26,"(np.str_('a'), np.int64(2))"` + "\n" +
		`q27,[np.str_('Denver Broncos') np.str_('Denver')]` + "\n" +
		`q28,"[np.str_('xx') np.str_('yy')` + "\n" + ` np.str_('zz')]"` + "\n" +
		`q29,[np.str_('a') None]` + "\n" +
		`q30,[np.str_('a') np.str_('b') np.str_('c') ... np.str_('x') np.str_('y') np.str_('z')]` + "\n" +
		`q31,"[(np.str_('Denver Broncos'), np.int64(177))]"` + "\n" +
		`q32,"[[np.str_('a'), np.str_('b')], np.str_('c')]"` + "\n"
	got, err := loadInOrder(CSV, "d.csv", in, nil)
	want := []string{
		`{"schema":1,"id":"d.csv:2","question":"q1","answers":["a/b","c"]}`,
		`d.csv:3 (id "d.csv:3"): field "answers": want an answer or a list of them, got an object, as pandas' to_csv writes a dict; put the answer texts in a column of lists (df["answers"].map(lambda a: list(a["text"])) for a Hugging Face export's), or write a JSON list (["..."]) if this text is the answer`,
		`d.csv:4 (id "d.csv:4"): field "answers": item 2 is None or nan, a missing value; want a list of strings or numbers`,
		`d.csv:5 (id "d.csv:5"): field "answers": item 2 is None or nan, a missing value; want a list of strings or numbers`,
		`d.csv:6 (id "d.csv:6"): field "answers": numpy's str() of an array, summarized with "..." as numpy prints one of over 1000 items: the items it leaves out are not in the file; write the column as lists before to_csv (df["answers"] = df["answers"].map(lambda a: a.tolist())), or the frame as JSON Lines (df.to_json(orient="records", lines=True))`,
		`{"schema":1,"id":"d.csv:7","question":"q6","answers":["1989","1990"]}`,
		`d.csv:8 (id "d.csv:8"): field "answers": numpy's str() of an array of floats, which numpy prints rounded to 8 digits (and 2.0 as 2.): write the column as lists before to_csv (df["answers"] = df["answers"].map(lambda a: a.tolist())), or the frame as JSON Lines (df.to_json(orient="records", lines=True)); write a JSON list (["..."]) if this text is the answer`,
		`{"schema":1,"id":"d.csv:9","question":"q8","answers":["[citation needed]"]}`,
		`{"schema":1,"id":"d.csv:10","question":"q9","answers":["1"]}`,
		`{"schema":1,"id":"d.csv:11","question":"q10","answers":["[...]"]}`,
		`{"schema":1,"id":"d.csv:12","question":"q11","answers":["true","x","2"]}`,            // as JSON Lines reads it
		`{"schema":1,"id":"d.csv:13","question":"q12","answers":["true","x"]}`,                // as to_json writes the list
		`{"schema":1,"id":"d.csv:14","question":"q13","answers":["true","false"]}`,            // numpy's array of bools
		`{"schema":1,"id":"d.csv:15","question":"q14","answers":["Denver Broncos","Denver"]}`, // a tuple
		`{"schema":1,"id":"d.csv:16","question":"q15","answers":["a"]}`,
		`{"schema":1,"id":"d.csv:17","question":"q16","answers":["(1, 2)"]}`, // a point's text
		`d.csv:18 (id "d.csv:18"): field "answers": item 2 is None or nan, a missing value; want a list of strings or numbers`,
		`{"schema":1,"id":"d.csv:19","question":"q18","answers":["(see above)"]}`,
		`d.csv:20 (id "d.csv:20"): field "answers": ` + nestedWant,
		`d.csv:21 (id "d.csv:21"): field "answers": ` + nestedWant,              // as JSON Lines refuses it
		`{"schema":1,"id":"d.csv:22","question":"q21","answers":["[[Paris]]"]}`, // a wiki link's text
		`d.csv:23 (id "d.csv:23"): field "answers": ` + nestedWant,
		`d.csv:24 (id "d.csv:24"): field "answers": ` + nestedWant, // to_json writes [["Denver Broncos",177]]
		`d.csv:25 (id "d.csv:25"): field "answers": ` + nestedWant,
		`{"schema":1,"id":"d.csv:26","question":"q25","answers":["Denver Broncos","Denver"]}`, // numpy 2's scalars in a list
		`{"schema":1,"id":"d.csv:27","question":"q26","answers":["a","2"]}`,
		`{"schema":1,"id":"d.csv:28","question":"q27","answers":["Denver Broncos","Denver"]}`, // numpy 2's object array
		`{"schema":1,"id":"d.csv:29","question":"q28","answers":["xx","yy","zz"]}`,
		`d.csv:31 (id "d.csv:31"): field "answers": item 2 is None or nan, a missing value; want a list of strings or numbers`,
		`d.csv:32 (id "d.csv:32"): field "answers": numpy's str() of an array, summarized with "..." as numpy prints one of over 1000 items: the items it leaves out are not in the file; write the column as lists before to_csv (df["answers"] = df["answers"].map(lambda a: a.tolist())), or the frame as JSON Lines (df.to_json(orient="records", lines=True))`,
		`d.csv:33 (id "d.csv:33"): field "answers": ` + nestedWant, // list(zip(texts, starts)) of two arrays
		`d.csv:34 (id "d.csv:34"): field "answers": ` + nestedWant,
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("CSV(%q) = %v\n%s\nwant\n%s", in, err, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
