package toolopenai

// MaxTools is the number of tools one request may carry: the API refuses
// more (array_above_max_length, as observed). Chat and Responses
// do not check it, since a registry may hold more tools than any one
// request sends: send a subset per request.
const MaxTools = 128
