// Package datasets holds what the well-known image data sets' file formats
// have in common, and its subpackages read and write them:
//
//   - mnist: the IDX files of MNIST (and Fashion-MNIST, EMNIST), plain or gzip,
//     and the feature names TensorFlow's convert_to_records.py gives them;
//   - cifar10: the fixed-length binary records of CIFAR-10 and CIFAR-100,
//     and any "label bytes + channel-major image" layout like them;
//   - digits: a seeded generator of a realistic digit-classification data set,
//     so demos and tests need no download.
//
// The parsers never trust a length field: counts are checked against the
// bytes that are really there before anything is allocated from them, and
// every failure is a *dataerr.Error naming the file, the byte offset and the
// record.
package datasets
