// Event log entries (src/gonuts/events.py, Event.to_json): the server sends each with a `text`
// in the socket's language (docs/protocol.md "EVENT"); the type is the last resort.

export function describeEvent(e) {
  return e.text ?? e.type.replace(/_/g, " ");
}
