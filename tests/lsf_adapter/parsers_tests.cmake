# parser tests
