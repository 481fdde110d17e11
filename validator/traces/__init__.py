"""A graded run as something to look at: rounds.py reads its exchanges into the rounds of an agent
run, page.py draws them as one HTML page (--html), otel.py writes them as OpenTelemetry spans in
the GenAI conventions (--otel) and otel_send.py sends them to an OTLP endpoint."""
