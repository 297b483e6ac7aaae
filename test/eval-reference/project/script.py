import sys
print("script got", sys.argv[1:])
