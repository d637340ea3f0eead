package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/internal/textfile"
)

// loadAll loads every input in the order given; the files of the evalearn pair are loaded
// together, where the first of them is given.
//
// Note: the pair was loaded before every other file, so that qa-load a.jsonl EvaLearn_Problem.json
// EvaLearn_Sequence.json wrote EvaLearn's records first, and --limit took them in a.jsonl's place.
func (a *app) loadAll(files []string) error {
	var pair []string
	for _, f := range files {
		if a.format == "evalearn" || a.format == "" && a.detected[f].format == "evalearn" {
			pair = append(pair, f)
		}
	}
	if slices.Contains(pair, "-") {
		return command.Usagef("format evalearn reads two files, not stdin: name them, qa-load EvaLearn_Problem.json EvaLearn_Sequence.json")
	}
	for _, f := range files {
		switch {
		case len(pair) > 0 && f == pair[0]:
			if err := a.loadEvaLearn(pair); err != nil {
				return err
			}
		case slices.Contains(pair, f):
		default:
			if err := a.loadFile(f); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *app) loadFile(name string) error {
	var count io.Writer
	if a.bar != nil {
		count = a.bar
	}
	return command.OpenInputs([]string{name}, a.stdin, count, func(in Input) error {
		watch := a.format != "" && a.format != "jsonl" && a.format != "csv"
		br := bufio.NewReaderSize(in.R, format.HeadSize)
		in.R = br
		// The first read finds a file that is no text (a tar or zip archive, a damaged gzip
		// file), which every format is to say the same of, naming the file.
		if _, err := br.Peek(1); err != nil && err != io.EOF {
			return command.ReadError(in.DisplayName(), 0, err)
		}
		if err := wideText(in.DisplayName(), br); err != nil {
			return err
		}
		as := a.format  // the format the file is read in
		var head []byte // what detection, and the warning of another format, decide on
		// A named file whose format detectFiles found is not read ahead again: its head, up to
		// 16 MiB, is wanted only for a format's warning, or for the message of one not found.
		known := as == "" && a.detected[name].format != ""
		var full bool
		var readErr error
		if as == "" && !known || watch {
			if head, full, readErr = format.Head(br); readErr != nil {
				// A gzip file cut short within the head is loaded up to the cut, as a
				// longer one is, and its error names the last line read whole. bufio.Reader
				// returns a read error once, to format.Head: the loader is given it again
				// after the bytes read.
				read, _ := br.Peek(br.Buffered())
				in.R = io.MultiReader(bytes.NewReader(bytes.Clone(read)), errReader{readErr})
			}
		}
		if as == "" {
			var err error
			if as, err = a.detectFormat(name, in.DisplayName(), head, full, readErr); err != nil {
				return err
			}
		}
		load, err := LoaderFor(as)
		if err != nil {
			return command.Usagef("--format: %v", err)
		}
		a.other = otherFormat{w: a.stderr, name: in.DisplayName(), format: a.format}
		if watch {
			a.other.seen = a.warnOtherFormat(in.DisplayName(), head)
		}
		if a.format == "" {
			a.other.format, a.other.byName = as, a.detected[name].byName
		}
		a.generic = as == "jsonl" || as == "csv"
		a.benchmark = !a.generic && as != "records" && as != "evalearn-results"
		err = a.loadWarned(in.DisplayName(), func() error {
			return load(in, a.opt, a.emitter(in.DisplayName()))
		})
		if err == nil {
			err = a.other.end()
		} else {
			// A read that failed (or an interrupt) before the watch decided: the bad items it
			// held are printed, as an unwatched file's are, before the error (the error that
			// stops a watched file printed them already, each cause once).
			a.other.msgs.Release(a.stderr)
		}
		a.other = otherFormat{}
		return err
	})
}

// loadWarned runs load, which reads the file named, and warns when it gave neither a record nor
// a bad item (a.read and a.bad as they were before it): an empty file, or a benchmark file with
// no question (a LoCoMo file holding []), which a run would otherwise pass over without a word.
func (a *app) loadWarned(name string, load func() error) error {
	before := a.read + a.bad
	if err := load(); err != nil {
		return err
	}
	if a.read+a.bad == before && a.ctx.Err() == nil {
		fmt.Fprintf(a.stderr, "qa-load: warning: %s holds no question, so it gives no record\n", name)
	}
	return nil
}

// detectFormat detects the format of the file name, shown as display, read without --format,
// from its name and head (format.Head's, full when the file's first object is longer than
// format.MaxHead), or takes the one detectFiles found for a named regular file from the same
// bytes; it keeps what it found in a.detected. It returns a usage error when it finds none, when
// the file is EvaLearn's, or when --map does not apply to it (mapFits); and readErr, a read error
// met within the head, when it finds none.
func (a *app) detectFormat(name, display string, head []byte, full bool, readErr error) (string, error) {
	d, ok := a.detected[name]
	if !ok {
		d.format, d.byName = format.DetectWhy(name, head)
		if a.detected == nil {
			a.detected = make(map[string]detection)
		}
		a.detected[name] = d
	}
	found := d.format
	switch {
	case found == "" && readErr != nil:
		return "", command.ReadError(display, 0, readErr)
	case found == "" && full && firstItemLine(head) > 0:
		return "", command.Usagef("%s:%d: cannot detect the format: the first JSON object, from this line, is longer than the %d MiB read to detect it; use --format (one of %s)",
			name, firstItemLine(head), formatMaxHeadMiB, strings.Join(Formats(), ", "))
	case found == "" && len(bytes.TrimSpace(head)) == 0: // a download that failed, say: --format would load nothing
		return "", command.Usagef("%s: the file is empty, so its format cannot be detected; use --format", name)
	case found == "":
		return "", command.Usagef("%s: cannot detect the format (its first bytes hold no benchmark's fields, and its name ends in none of .jsonl, .ndjson, .csv, .tsv, .tab); use --format (one of %s)", name, strings.Join(Formats(), ", "))
	}
	// A pipe, whose format loadAll and mapApplies could not read ahead.
	if found == "evalearn" {
		return "", command.Usagef("%s is an EvaLearn file, read with its pair by name, which a pipe cannot be: name the two files", name)
	}
	if err := a.mapFits(name, found); err != nil {
		return "", err
	}
	return found, nil
}

// firstItemLine is the line of head that its first JSON object begins on, the top-level one or
// a top-level array's first item, or 0 where head opens neither with '{' nor with '[' (text that
// is no JSON, which says nothing of an object).
func firstItemLine(head []byte) int {
	rest := bytes.TrimLeft(head, " \t\r\n")
	if item, ok := bytes.CutPrefix(rest, []byte("[")); ok {
		rest = bytes.TrimLeft(item, " \t\r\n")
	} else if !bytes.HasPrefix(rest, []byte("{")) {
		return 0
	}
	return 1 + bytes.Count(head[:len(head)-len(rest)], []byte("\n"))
}

// formatMaxHeadMiB is format.MaxHead in MiB, as messages name it.
const formatMaxHeadMiB = format.MaxHead >> 20

// warnOtherFormat warns when a file that --format names a benchmark's (or records) holds, by
// head, its first bytes, another benchmark's fields, and returns the format they say (else ""):
// its items would be bad ones, each lacking the fields of the format given ('missing field
// "_id"'), with no word of what the file is (otherFormat stops such a file). The generic
// formats, jsonl and csv, are left alone: giving them over a benchmark's file is how its fields
// are mapped by hand. SQuAD's layout is also CMRC 2018's (not its first one).
//
// head is what detection reads (format.Head): the first object whole, of a file or a pipe, so
// that the warning does not hang on how much of a pipe had come when it looked, and records read
// from a slow pipe come out once their first object is in: its first line alone would be a lone
// "[" in an indented file (LoCoMo's, EvaLearn's), whose fields come after it, and a JSON
// document written on one line ends its line at the end of the input.
//
// Note: a pipe's head was what the loader had read of it (up to 64 kB) when it gave its first
// item, which over indented JSON was its first line or more, as the bytes happened to come: the
// warning was given or not by the timing of the writer.
func (a *app) warnOtherFormat(name string, head []byte) string {
	seen := format.Detect("", head) // the content alone, not the name
	// SQuAD's layout is CMRC 2018's too, but CMRC's first layout (a JSON array of context_text
	// and qas) the squad format does not read.
	layout := map[string]bool{"squad": true, "cmrc2018": true}
	squadLayout := bytes.Contains(head, []byte(`"paragraphs"`)) || format.SQuADExport(head) // or its questions exported
	if seen == "" || seen == a.format {
		return ""
	}
	if layout[seen] && layout[a.format] && squadLayout {
		// One layout: the format sets the language, which decides how the text is scored.
		if a.lang == "" {
			fmt.Fprintf(a.stderr, "qa-load: warning: %s %s, and --format %s reads it as %s: %s\n", name,
				map[string]string{"cmrc2018": "is mostly Chinese text", "squad": "is not mostly Chinese text"}[seen],
				a.format, map[string]string{"squad": "English (lang en), scored by SQuAD's rules", "cmrc2018": "Chinese (lang zh), scored by CMRC 2018's rules"}[a.format],
				"--format "+seen+" reads it as its text is, or --lang sets the language")
		}
		return ""
	}
	detected := " (named without --format, a file's format is detected)"
	if name == "stdin" {
		detected = ""
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %s looks like %s %s file by its fields, and --format %s reads it as %s%s\n",
		name, article(seen), seen, a.format, a.format, detected)
	return seen
}

// article is the indefinite article of a format's name.
func article(format string) string {
	if strings.HasPrefix(format, "evalearn") {
		return "an"
	}
	return "a"
}

func (a *app) loadEvaLearn(files []string) error {
	for _, f := range files { // before the pair is told apart by the files' text
		if err := wideFile(f); err != nil {
			return err
		}
	}
	probs, seqs, err := EvaLearnPair(files)
	if _, ok := errors.AsType[*textfile.FormatError](err); ok {
		return err // a file that is no text: no fault of the command line's
	}
	if err != nil {
		return command.Usagef("%v", err)
	}
	pf, err := os.Open(probs)
	if err != nil {
		return err
	}
	defer pf.Close()
	sf, err := os.Open(seqs)
	if err != nil {
		return err
	}
	defer sf.Close()
	a.generic, a.benchmark = false, false // a file read before it left them set (EvaLearn gives no empty gold)
	sequences := Input{Name: seqs, R: textfile.NewReader(sf)}
	return a.loadWarned(sequences.DisplayName(), func() error {
		return EvaLearn(Input{Name: probs, R: textfile.NewReader(pf)}, sequences, a.opt, a.emitter(sequences.DisplayName()))
	})
}

// mapApplies returns a usage error when --map or --locomo-model is given and a file is read in a
// format it does not apply to (a benchmark's, or records): the mapping would be ignored, and a generic file
// whose name says hotpotqa, say, would be misread without a word. A file detectFile cannot read
// ahead (a pipe) is checked by loadFile once its format is known.
func (a *app) mapApplies(files []string) error {
	for _, f := range files {
		format := a.format
		if format == "" {
			format = a.detected[f].format
		}
		if err := a.mapFits(f, format); err != nil {
			return err
		}
	}
	return nil
}

// mapFits returns mapApplies' usage error for the file name read in format, if --map is given
// and format is a known one other than jsonl and csv, or --locomo-model and one other than
// locomo.
func (a *app) mapFits(name, format string) error {
	if name == "-" {
		name = "stdin"
	}
	if len(a.opt.Map) > 0 && format != "" && format != "jsonl" && format != "csv" {
		return command.Usagef("--map maps the fields of jsonl and csv files, and %s is read as %s (give --format jsonl or csv to map it)", name, format)
	}
	if a.opt.LoCoMoModel != "" && format != "" && format != "locomo" {
		return command.Usagef("--locomo-model%s takes a model's answers from the output file of LoCoMo's evaluate_qa.py, read as locomo, and %s is read as %s", a.locomoModelFrom, name, format)
	}
	return nil
}

// detectFiles detects the format of each of files that is a regular file (detectFile), once
// before any is read, for loadAll to find the files of the EvaLearn pair, mapApplies to check
// --map, and loadFile to load each in: detection reads a file's first object whole, up to 16 MiB,
// and decodes it. A file it cannot read ahead is left out.
//
// Note: each of the three detected the file again, from its text, so that a file whose first line
// ran to megabytes was read and decoded three times before its first record.
func detectFiles(files []string) map[string]detection {
	detected := make(map[string]detection)
	for _, f := range files {
		if _, seen := detected[f]; seen {
			continue
		}
		if d, ok := detectFile(f); ok {
			detected[f] = d
		}
	}
	return detected
}

// detection is the format detected of a file without --format ("" when none), and whether the
// file's name picked it, its content telling none (format.DetectWhy).
type detection struct {
	format string
	byName bool
}

// detectFile detects the format of a named regular file from its name and first bytes ("" when
// they tell none), or reports !ok for any other: a named pipe (bash's <(…), /dev/fd/63) or a
// device can be read once only, by its loader, which detects the format from the stream as it
// reads it.
func detectFile(name string) (d detection, ok bool) {
	if !isRegular(name) {
		return d, false
	}
	f, err := os.Open(name)
	if err != nil {
		return d, false
	}
	defer f.Close()
	head, _, _ := format.Head(bufio.NewReaderSize(textfile.NewReader(f), format.HeadSize))
	d.format, d.byName = format.DetectWhy(name, head)
	return d, true
}

// isRegular reports whether name is a regular file, which can be read ahead without waiting on a
// writer, unlike a pipe or a device.
func isRegular(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// wideFile returns wideText's error of the file named, or nil (a file that cannot
// be read, whose reader reports it).
func wideFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(textfile.NewReader(f), format.HeadSize)
	if _, err := br.Peek(1); err != nil {
		return nil
	}
	return wideText(Input{Name: name}.DisplayName(), br)
}

// wideText returns the error, naming the input name, of text in UTF-16 or UTF-32 without a byte
// order mark, from the bytes br has read already (the first Read of textfile.NewReader returns
// what it looked at, up to textfile.HeadSize bytes, at least the first line or all of them), so
// that a stream is not waited on. It is named by its encoding when it begins with ASCII
// (wideOrder), and otherwise known by a NUL byte in the first line of those bytes, which no
// UTF-8 text holds, or further on (wideBeyondLine), in a first line that begins no JSON object
// or array: textfile.NewReader refuses other data with a NUL in its first line as binary data,
// unless it may be UTF-16 or UTF-32, and leaves JSON lines with one to the line's reader.
// Without it, CJK text in UTF-16 was read as lines that are not UTF-8, each with the advice to
// convert it from Latin-1.
func wideText(name string, br *bufio.Reader) error {
	head, _ := br.Peek(max(4, br.Buffered()))
	if order := wideOrder(head); order != "" {
		return fmt.Errorf("%s: %s text without a byte order mark, not UTF-8: convert it first (iconv -f %s -t UTF-8 FILE)", name, order, order)
	}
	first := head[:min(len(head), textfile.HeadSize)]
	line := first
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if t := bytes.TrimLeft(line, " \t\r"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return nil
	}
	if bytes.IndexByte(line, 0) < 0 && !wideBeyondLine(first) {
		return nil
	}
	return fmt.Errorf("%s: NUL bytes at its start, which no UTF-8 text holds: text in UTF-16 or UTF-32 without a "+
		"byte order mark? convert it first (iconv -f UTF-16LE -t UTF-8 FILE, or from UTF-16BE, UTF-32LE or UTF-32BE)", name)
}

// wideBeyondLine reports whether first, the first bytes of a text whose first line holds no NUL,
// is UTF-16 or UTF-32 all the same: a character of it whose code holds 0A (上, U+4E0A) ended
// that "line" before the NUL bytes of its ASCII characters. It is when first holds a NUL, is no
// UTF-8 (UTF-8 text with a NUL further on is a bad line of its own, for its reader to name), and
// its units are all characters a text holds in some byte order (textfile.MayBeWide).
func wideBeyondLine(first []byte) bool {
	whole := first
	for i := len(first) - 1; i >= 0 && i >= len(first)-utf8.UTFMax; i-- {
		if utf8.RuneStart(first[i]) {
			if !utf8.FullRune(first[i:]) {
				whole = first[:i] // a character cut by the end of what was read
			}
			break
		}
	}
	return bytes.IndexByte(first, 0) >= 0 && !utf8.Valid(whole) && textfile.MayBeWide(first)
}

// wideOrder returns "UTF-16LE", "UTF-16BE", "UTF-32LE" or "UTF-32BE" when head, the first 4
// bytes of a text, begin with ASCII in UTF-16 or UTF-32 of that byte order (two characters in
// UTF-16, one in UTF-32), else "". Text in UTF-16 or UTF-32 with its byte order mark is decoded
// (textfile.NewReader); without one (iconv -t UTF-16LE writes none) it was read as UTF-8 holding
// NUL bytes, which no benchmark file or JSON text begins with: every line was a bad item
// ("invalid character '\x00'"), or a CSV header's names read " a n s w e r s".
func wideOrder(head []byte) string {
	ascii := func(c byte) bool { return c != 0 && c < utf8.RuneSelf }
	switch {
	case len(head) < 4:
		return ""
	case ascii(head[0]) && head[1] == 0 && head[2] == 0 && head[3] == 0:
		return "UTF-32LE"
	case head[0] == 0 && head[1] == 0 && head[2] == 0 && ascii(head[3]):
		return "UTF-32BE"
	case ascii(head[0]) && head[1] == 0 && ascii(head[2]) && head[3] == 0:
		return "UTF-16LE"
	case head[0] == 0 && ascii(head[1]) && head[2] == 0 && ascii(head[3]):
		return "UTF-16BE"
	}
	return ""
}

// errReader returns its error from every Read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
