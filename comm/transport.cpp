// placeholder: implemented by the comm work
