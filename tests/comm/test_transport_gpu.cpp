// placeholder: tests to be written
