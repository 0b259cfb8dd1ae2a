// Package natsqueue is a queue of work units shared by many workers on
// many hosts, kept in NATS JetStream: TensorFlow's shared filename queue
// (a string_input_producer with a shared_name) for a job that outgrows one
// machine. It implements queue.Queue for scalar strings, file names or
// serialized examples, so readers and pipeline stages use it as they use
// an in-process FIFO queue.
package natsqueue
