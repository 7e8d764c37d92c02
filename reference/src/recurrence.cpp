// placeholder: filled by the reference work
