// Package distdemo is the demonstration behind the command
// sluice-demo-distributed (cmd/sluice-demo-distributed), kept out of the
// sluice command so that only it links the servers below: several
// workers share one filename queue, on NATS JetStream, and read their
// files from an object store, as a team's trainers on many hosts would.
//
// Everything runs in one process with no network beyond loopback: an
// embedded NATS server with JetStream, and an S3-protocol server
// (gofakes3, in memory) that the workers reach through package
// storage/blobfs exactly as they would reach Amazon S3. The demo writes
// digit images as GZIP TFRecord shards of tf.train.Example into the
// bucket, then, for each epoch, a producer enqueues the shuffled file
// names into that epoch's shared queue (queue/natsqueue) and closes it, and
// three workers take files from it, read them through a TFRecord reader
// over s3:// names and parse every Example. A reader acknowledges a file
// after its last record (recordio.WorkAcker).
//
// In the first epoch one worker is killed in the middle of a file: its
// connection goes away without acknowledging, and after the queue's ack
// wait JetStream hands the file to a surviving worker. The killed worker
// is restarted for the next epoch. The run checks, per epoch, that the
// files finished by the workers are each file exactly once and together
// hold every example exactly once, and that the queues ended with end of
// input rather than a timeout.
package distdemo
