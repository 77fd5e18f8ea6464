# runner tests
