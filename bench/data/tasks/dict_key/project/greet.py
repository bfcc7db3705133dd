def greet(user):
    return "Hello, " + user["firstname"] + "!"
