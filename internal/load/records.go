package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// Records loads qapipe records, as any stage wrote them, whole: every field, the prediction, the
// judgments and the scores included, and fields this schema does not know. It lets qa-load's
// selection (--types, --shard, --sample, --limit) and --split/--lang work on a saved run. A line
// that is no record is a bad item; --map does not apply. A JSON array of records (as a Python
// list of them is saved by json.dump, on one line or indented) is read an item at a time, each
// written as one line: the stages after qa-load read JSON Lines only.
func Records(in Input, opt Options, emit Emit) error {
	br := bufio.NewReaderSize(in.R, 1<<16)
	first, err := firstByte(br)
	if err != nil {
		return command.ReadError(in.DisplayName(), 0, err)
	}
	if first == '[' {
		in.R = br
		return eachItemAt(in, opt, emit, func(raw []byte) string { return record.PeekID(raw) }, recordItem(in))
	}
	rd := record.NewReader(br, in.DisplayName())
	if opt.MaxLine > 0 {
		rd.SetMaxLine(opt.MaxLine)
	}
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		var bad *record.Error
		switch {
		case errors.As(err, &bad):
			err = emit(nil, 0, bad)
		case err != nil:
			return command.ReadError(in.DisplayName(), rd.Line(), err)
		default:
			err = emit(rec, rd.Line(), nil)
		}
		if err != nil {
			return err
		}
	}
}

// recordItem decodes an item of a JSON array of records as the Reader decodes a line, laid out on
// one line first, so that an indented item's unknown fields are written on the record's line.
func recordItem(in Input) func(raw jsonRaw, at itemAt, emit Emit) error {
	return func(raw jsonRaw, at itemAt, emit Emit) error {
		var line bytes.Buffer
		if err := json.Compact(&line, raw); err != nil {
			return emit(nil, 0, badf(in, at.line, record.PeekID(raw), "%w", record.InvalidLine(raw, err)))
		}
		rec := new(record.Record)
		if err := record.Unmarshal(line.Bytes(), rec); err != nil {
			return emit(nil, 0, badf(in, at.line, record.PeekID(line.Bytes()), "%w", record.InvalidLine(line.Bytes(), err)))
		}
		if err := rec.ValidateLine(line.Bytes()); err != nil {
			return emit(nil, 0, badf(in, at.line, rec.ID, "%s", err))
		}
		return emit(rec, at.line, nil)
	}
}
