#!/usr/bin/env python3
# xinput.py EVENT... - sends input to the X display in $DISPLAY through the XTEST extension
# (libX11 and libXtst by ctypes: no packages beyond those GLFW already needs), for the demos'
# window tests. Events, in order:
#   wait:NAME      wait (up to 60 s) until a top-level window whose name starts with NAME maps
#   move:X,Y       the pointer to X, Y (screen pixels)
#   click          a left-button press and release where the pointer is
#   key:KEYSYM     a key press and release (X keysym names: space, H, bracketright, Left, ...)
#   sleep:S        S seconds
# Exits 0 when every event was sent; 1 (and why on stderr) when it could not be.
import ctypes, ctypes.util, sys, time


def lib(name, soname):
    path = ctypes.util.find_library(name) or soname
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        sys.exit('xinput.py: cannot load %s: %s' % (path, e))


x11, xtst = lib('X11', 'libX11.so.6'), lib('Xtst', 'libXtst.so.6')
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
x11.XDefaultRootWindow.restype = ctypes.c_ulong
x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x11.XStringToKeysym.restype = ctypes.c_ulong
x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
x11.XKeysymToKeycode.restype = ctypes.c_ubyte
x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x11.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                           ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                           ctypes.POINTER(ctypes.c_uint)]
x11.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_char_p)]
x11.XFlush.argtypes = [ctypes.c_void_p]
x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
x11.XFree.argtypes = [ctypes.c_void_p]
for f in (xtst.XTestFakeKeyEvent, xtst.XTestFakeButtonEvent):
    f.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                      ctypes.c_ulong]

dpy = x11.XOpenDisplay(None)
if not dpy:
    sys.exit('xinput.py: cannot open the display')
root = x11.XDefaultRootWindow(dpy)


def window_named(prefix):
    r, p, n = ctypes.c_ulong(), ctypes.c_ulong(), ctypes.c_uint()
    kids = ctypes.POINTER(ctypes.c_ulong)()
    if not x11.XQueryTree(dpy, root, ctypes.byref(r), ctypes.byref(p), ctypes.byref(kids), ctypes.byref(n)):
        return False
    found = False
    for i in range(n.value):
        name = ctypes.c_char_p()
        if x11.XFetchName(dpy, kids[i], ctypes.byref(name)) and name.value:
            found = found or name.value.decode('latin1').startswith(prefix)
    if kids:
        x11.XFree(kids)
    return found


def flush():
    x11.XSync(dpy, 0)
    time.sleep(0.15)  # let the demo's frame loop take it (events keep their order anyway)


for ev in sys.argv[1:]:
    what, _, arg = ev.partition(':')
    if what == 'wait':
        end = time.time() + 60
        while not window_named(arg):
            if time.time() > end:
                sys.exit('xinput.py: no window named %s' % arg)
            time.sleep(0.2)
        time.sleep(1.0)  # mapped; give it its first frames
    elif what == 'move':
        x, y = (int(v) for v in arg.split(','))
        xtst.XTestFakeMotionEvent(dpy, -1, x, y, 0)
        flush()
    elif what == 'click':
        xtst.XTestFakeButtonEvent(dpy, 1, 1, 0)
        xtst.XTestFakeButtonEvent(dpy, 1, 0, 0)
        flush()
    elif what == 'key':
        code = x11.XKeysymToKeycode(dpy, x11.XStringToKeysym(arg.encode()))
        if not code:
            sys.exit('xinput.py: no key for keysym %s' % arg)
        xtst.XTestFakeKeyEvent(dpy, code, 1, 0)
        xtst.XTestFakeKeyEvent(dpy, code, 0, 0)
        flush()
    elif what == 'sleep':
        time.sleep(float(arg))
    else:
        sys.exit('xinput.py: unknown event %s' % ev)
