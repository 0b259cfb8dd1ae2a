// Package decode turns record bytes into tensors as TensorFlow's decoders
// do: CSV lines (decode_csv), raw binary values (decode_raw) and images
// (decode_jpeg, decode_png, decode_gif, decode_bmp, decode_image).
//
// Decoders are built once from their options, which are checked then, and
// reused for every record: NewCSV, NewRaw and NewImage. CSV and Raw decode
// one record (Decode) or a batch at once (DecodeBatch), and a batch can be
// decoded into tensors reused from batch to batch (DecodeBatchInto), which
// then allocates nothing for numbers. Numbers are parsed from the record
// bytes with TensorFlow's rules (C's strtol and strtod: surrounding
// spaces, hexadecimal floats, inf and nan, overflow an error for integers).
//
// An error about a record is a [*dataerr.Error] naming the record (its
// Record index in a batch and, where the caller gave one, its Key such as
// "file.csv:12"), holding a [*CSVError], [*RawError] or [*ImageError]
// with TensorFlow's message text and what else is known (the field, the
// image format), so that a
// failing record is easy to find and tests written against TensorFlow's
// messages keep matching. No input makes a decoder panic, and no header
// makes it allocate more than a small multiple of its limit (an image
// decoder's is MaxBytes, which says how much).
//
// The reference outputs under testdata were written by TensorFlow 2.21
// (tools/tfref/decode.py); where sluice deliberately differs, the
// difference is documented on the decoder.
package decode
