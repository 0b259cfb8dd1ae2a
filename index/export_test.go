package index

// MarshalV1 is marshalV1, for the external tests.
var MarshalV1 = marshalV1
