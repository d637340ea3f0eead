package load

import (
	"errors"
	"io"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// Records loads qapipe records, as any stage wrote them, whole: every field, the prediction, the
// judgments and the scores included, and fields this schema does not know. It lets qa-load's
// selection (--types, --shard, --sample, --limit) and --split/--lang work on a saved run. A line
// that is no record is a bad item; --map does not apply.
func Records(in Input, opt Options, emit Emit) error {
	rd := record.NewReader(in.R, in.DisplayName())
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
